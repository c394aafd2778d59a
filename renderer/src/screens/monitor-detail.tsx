import type { ScreenProps } from '../app.tsx';
import { PageHeader } from '../components.tsx';

export function MonitorDetailScreen(_props: ScreenProps) {
  return <PageHeader title="Monitor">Not built yet.</PageHeader>;
}
