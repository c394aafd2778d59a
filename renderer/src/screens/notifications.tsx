import type { ScreenProps } from '../app.tsx';
import { PageHeader } from '../components.tsx';

export function NotificationsScreen(_props: ScreenProps) {
  return <PageHeader title="Notifications">Not built yet.</PageHeader>;
}
