import { type ReactNode, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import type { Access } from './api.ts';
import { Icon } from './icons.tsx';
import { hasNavigated } from './router.tsx';

/** A screen's title and lede; takes the focus after an in-app navigation so it is announced. */
export function PageHeader({ title, children, actions }: { title: string; children?: ReactNode; actions?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Statusdesk`;
    if (hasNavigated()) heading.current?.focus();
  }, [title]);
  return (
    <header className="page-header">
      <div>
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {children ? <p className="lede">{children}</p> : null}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}

export function ErrorNote({ children, id }: { children: ReactNode; id?: string }) {
  return (
    <p className="note note-error" role="alert" id={id}>
      {children}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      Loading {what}…
    </p>
  );
}

export function AccessBadge({ access }: { access: Access }) {
  return <span className={`badge ${access === 'write' ? 'badge-write' : 'badge-read'}`}>{access === 'write' ? 'Read & write' : 'Read only'}</span>;
}

/** Radios `Read only` and `Read & write`; `max` read disables the second. */
export function AccessRadios({
  value,
  onChange,
  max = 'write',
  name,
  legend = 'Access',
}: {
  value: Access;
  onChange(access: Access): void;
  max?: Access;
  name: string;
  legend?: string;
}) {
  const id = useId();
  const option = (access: Access, label: string, hint: string, disabled = false) => (
    <div className={`radio${disabled ? ' disabled' : ''}`}>
      <input
        type="radio"
        id={`${id}-${access}`}
        name={name}
        value={access}
        checked={value === access}
        disabled={disabled}
        aria-describedby={`${id}-${access}-hint`}
        onChange={() => onChange(access)}
      />
      <label htmlFor={`${id}-${access}`}>{label}</label>
      <small id={`${id}-${access}-hint`}>{hint}</small>
    </div>
  );
  return (
    <fieldset className="radios">
      <legend>{legend}</legend>
      {option('read', 'Read only', 'Reads monitors, pages and results')}
      {max === 'read'
        ? option('write', 'Read & write', 'Not asked for: access can be lowered, never raised', true)
        : option('write', 'Read & write', 'Also creates, changes and deletes')}
    </fieldset>
  );
}

/**
 * A table of `columns` and a last column for each row's actions, its heading there for screen
 * readers only. In a narrow window each row is a card (`.table-cards` in styles.css), each cell
 * under its column's name: the names are written on the cells (`data-label`) here, as rows come
 * and go, so that no screen has to.
 */
export function ActionsTable({ columns, children }: { columns: string[]; children: ReactNode }) {
  const body = useRef<HTMLTableSectionElement>(null);
  // The columns' names as one string: the array is made anew at each render.
  const names = columns.join('\n');
  useLayoutEffect(() => {
    const tbody = body.current;
    if (!tbody) return;
    const labels = names.split('\n');
    const label = () => {
      for (const row of Array.from(tbody.rows)) {
        // A row of every column (not a detail row spanning them): the first cell names the row, the last holds its actions.
        if (row.cells.length !== labels.length + 1) continue;
        labels.forEach((column, i) => {
          const cell = row.cells[i]!;
          if (i > 0 && cell.dataset.label !== column) cell.dataset.label = column;
        });
      }
    };
    label();
    const rows = new MutationObserver(label);
    rows.observe(tbody, { childList: true });
    return () => rows.disconnect();
  }, [names]);
  return (
    <div className="table-wrap">
      <table className="table table-cards">
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody ref={body}>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * A modal confirmation on the native <dialog>: it traps the focus, closes on Escape and gives
 * the focus back to the button that opened it.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  tone = 'danger',
  busy,
  error,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** The confirming button's look: red for what cannot be undone, the primary one otherwise. */
  tone?: 'danger' | 'primary';
  busy?: boolean;
  error?: string | undefined;
  onConfirm(): void;
  onCancel(): void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div id={bodyId} className="dialog-body">
        {children}
      </div>
      {error ? <ErrorNote>{error}</ErrorNote> : null}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button type="button" className={`button button-${tone}`} onClick={onConfirm} disabled={busy}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/**
 * A secret the service shows this once (a key's, a webhook's signing secret): read-only, selected
 * on focus, with Copy (which selects it when the clipboard is refused) and Done.
 */
export function SecretOnce({
  heading,
  level = 2,
  label,
  secret,
  onDone,
  children,
}: {
  heading: ReactNode;
  level?: 2 | 3;
  /** The field's accessible name, e.g. "Secret". */
  label: string;
  secret: string;
  onDone(): void;
  /** What the secret is for, and that it is not shown again. */
  children: ReactNode;
}) {
  const [copied, setCopied] = useState<'yes' | 'failed'>();
  const field = useRef<HTMLInputElement>(null);
  const id = useId();
  const Heading = level === 2 ? 'h2' : 'h3';
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('yes');
    } catch {
      // No clipboard (an insecure origin, a refusal): select it so the keyboard can copy it.
      field.current?.select();
      setCopied('failed');
    }
  };
  return (
    <section aria-labelledby={`${id}-heading`} className="card section card-success">
      <Heading id={`${id}-heading`}>{heading}</Heading>
      <p>{children}</p>
      <div className="secret-row">
        <label htmlFor={`${id}-secret`} className="visually-hidden">
          {label}
        </label>
        <input id={`${id}-secret`} ref={field} type="text" readOnly value={secret} className="secret" onFocus={(event) => event.target.select()} />
        <button type="button" className="button" onClick={copy}>
          <Icon name={copied === 'yes' ? 'check' : 'copy'} />
          Copy
        </button>
        <button type="button" className="button button-ghost" onClick={onDone}>
          Done
        </button>
      </div>
      <p className="small muted" role="status">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'Copying was refused: the secret is selected, press Ctrl+C or ⌘C.' : ''}
      </p>
    </section>
  );
}
