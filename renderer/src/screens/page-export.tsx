import { useState } from 'react';
import { ErrorNote } from '../components.tsx';
import { useExportPage } from '../data/pages.ts';
import { asApiError } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { saveFile } from '../save-file.ts';
import type { PageSectionProps } from './page-form-parts.tsx';

export function PageExportSection({ workspaceId, page }: PageSectionProps) {
  const [state, setState] = useState<{ busy: boolean; error?: string; saved?: string }>({ busy: false });
  const exportPage = useExportPage(workspaceId);

  const download = async () => {
    setState({ busy: true });
    try {
      const { blob, filename } = await exportPage.mutateAsync(page.id);
      saveFile(blob, filename);
      setState({ busy: false, saved: `${filename} downloaded (${Math.max(1, Math.round(blob.size / 1024))} KB).` });
    } catch (error) {
      setState({ busy: false, error: asApiError(error).message });
    }
  };

  return (
    <section aria-labelledby="export-heading" className="section">
      <h2 id="export-heading">Export a static copy</h2>
      <div className="card export">
        <p>
          This service listens on your own machine, which is no place to host a page the public reaches. Download a copy of the page as it is now and publish it
          on any web host that serves files.
        </p>
        <p>The zip file holds:</p>
        <ul>
          <li>
            <code>index.html</code>: the page as visitors see it now, without the subscription form, its links to the feed and the summary relative;
          </li>
          <li>
            <code>feed.atom</code>: the Atom feed of reports and maintenance;
          </li>
          <li>
            <code>summary.json</code>: the current state, for scripts;
          </li>
          <li>
            <code>page.js</code>: the page's script, which shows times in each visitor's time zone and fetches the page again every minute (the page is complete
            without it).
          </li>
        </ul>
        <p className="small muted">
          It is a snapshot: the line under its banner says when it was made. Export again after each change, or run{' '}
          <code>statusdesk pages export {page.slug} --out ./site</code> from a scheduled job. Publish the files at <code>/status/{page.slug}/</code> on the host
          named by <code>STATUSDESK_PUBLIC_URL</code>, so the feed's links are right.
        </p>
        <div className="form-actions">
          <button type="button" className="button button-primary" onClick={download} disabled={state.busy}>
            <Icon name="download" />
            {state.busy ? 'Preparing the copy…' : 'Download the static site'}
          </button>
        </div>
        <p role="status" className={state.saved ? 'note note-done' : 'visually-hidden'}>
          {state.saved}
        </p>
        {state.error ? <ErrorNote>{state.error}</ErrorNote> : null}
      </div>
    </section>
  );
}
