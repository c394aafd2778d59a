import type { ScreenProps } from '../app.tsx';
import { PageHeader } from '../components.tsx';

export function ConnectEditorScreen(_props: ScreenProps) {
  return <PageHeader title="Connect an AI editor">Not built yet.</PageHeader>;
}
