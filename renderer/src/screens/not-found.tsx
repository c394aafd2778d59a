import type { ReactNode } from 'react';
import { PageHeader } from '../components.tsx';
import { Link } from '../router.tsx';

export function NotFoundScreen({ title, children }: { title: string; children: ReactNode }) {
  return (
    <>
      <PageHeader title={title}>{children}</PageHeader>
      <p>
        <Link to="/">Go to the overview</Link>
      </p>
    </>
  );
}
