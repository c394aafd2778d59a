import type { ScreenProps } from '../app.tsx';
import { PageHeader } from '../components.tsx';

export function AuditScreen(_props: ScreenProps) {
  return <PageHeader title="Audit log">Not built yet.</PageHeader>;
}
