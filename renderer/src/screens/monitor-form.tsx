import type { ScreenProps } from '../app.tsx';
import { PageHeader } from '../components.tsx';

export function MonitorFormScreen(_props: ScreenProps) {
  return <PageHeader title="Monitor">Not built yet.</PageHeader>;
}
