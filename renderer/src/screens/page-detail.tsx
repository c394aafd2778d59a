import type { ScreenProps } from '../app.tsx';
import { PageHeader } from '../components.tsx';

export function PageDetailScreen(_props: ScreenProps) {
  return <PageHeader title="Status page">Not built yet.</PageHeader>;
}
