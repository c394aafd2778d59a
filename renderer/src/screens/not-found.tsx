import type { ReactNode } from 'react';
import { PageHeader } from '../components.tsx';

export function NotFoundScreen({ title, children }: { title: string; children: ReactNode }) {
  return <PageHeader title={title}>{children}</PageHeader>;
}
