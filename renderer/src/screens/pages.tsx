import type { ScreenProps } from '../app.tsx';
import { PageHeader } from '../components.tsx';

export function PagesScreen(_props: ScreenProps) {
  return <PageHeader title="Status pages">Not built yet.</PageHeader>;
}
