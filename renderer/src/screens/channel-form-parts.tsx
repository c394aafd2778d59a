import { useId, useRef, useState } from 'react';
import { FieldGroup, FieldMessage } from '../forms.tsx';
import { Icon } from '../icons.tsx';
import { generatedSecret } from './channel-form-model.ts';
import './channel-form-parts.css';

// Parts of the channel form (notifications.tsx) of their own: which monitors a channel is for
// beyond those picked, and a webhook's signing secret, generated here and shown once.

/** A channel for every monitor, and a default for new ones: both stored on the channel. */
export function ChannelScopeFields({
  allMonitors,
  defaultForNew,
  onChange,
  errors,
}: {
  allMonitors: boolean;
  defaultForNew: boolean;
  onChange(change: { allMonitors?: boolean; defaultForNew?: boolean }): void;
  errors: { of(field: string): string | undefined };
}) {
  return (
    <FieldGroup legend="Which monitors" error={errors.of('allMonitors') ?? errors.of('defaultForNew')}>
      {(control) => (
        <div className="kind-choices">
          <div className="check-choice">
            <label className="check">
              <input type="checkbox" checked={allMonitors} {...control} onChange={(e) => onChange({ allMonitors: e.target.checked })} />
              All monitors
            </label>
            <small className="muted">Every monitor of the workspace, those added later too.</small>
          </div>
          <div className="check-choice">
            <label className="check">
              <input type="checkbox" checked={defaultForNew} {...control} onChange={(e) => onChange({ defaultForNew: e.target.checked })} />
              Default for new monitors
            </label>
            <small className="muted">Each monitor created from now on is wired to this channel; the monitors there are now are left as they are.</small>
          </div>
        </div>
      )}
    </FieldGroup>
  );
}

/**
 * A webhook's signing secret: typed or pasted, or generated in the browser (256 random bits).
 * A generated one is shown here, once, with Copy: after saving, the service only says it is set.
 */
export function SigningSecretField({
  label,
  hint,
  value,
  onChange,
  error,
  masked,
  maxLength,
}: {
  label: string;
  hint: string | undefined;
  /** The longest secret the service takes. */
  maxLength: number | undefined;
  value: string;
  onChange(value: string): void;
  error: string | undefined;
  /** How the service shows the stored secret; undefined when none is stored yet. */
  masked: string | undefined;
}) {
  const id = useId();
  const [generated, setGenerated] = useState<string>();
  const [copied, setCopied] = useState<'yes' | 'failed'>();
  const shown = useRef<HTMLInputElement>(null);
  const generate = () => {
    const secret = generatedSecret();
    setGenerated(secret);
    setCopied(undefined);
    onChange(secret);
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(generated ?? '');
      setCopied('yes');
    } catch {
      shown.current?.select();
      setCopied('failed');
    }
  };
  // Typed over, a generated secret is no longer the one that will be saved.
  const showing = generated !== undefined && generated === value;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  return (
    <div className={`field signing-secret${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <div className="secret-row">
        <input
          id={id}
          type="password"
          autoComplete="new-password"
          maxLength={maxLength}
          value={value}
          aria-invalid={error ? true : undefined}
          aria-describedby={[hintId, error ? errorId : undefined].filter(Boolean).join(' ')}
          onChange={(e) => onChange(e.target.value)}
        />
        <button type="button" className="button" onClick={generate}>
          <Icon name="key" />
          {masked || generated ? 'Generate a new secret' : 'Generate a secret'}
        </button>
      </div>
      <p className="field-hint" id={hintId}>
        {masked && !showing ? `Set. Stored and hidden (${masked}). Leave empty to keep it. ` : ''}
        {hint}
      </p>
      {showing ? (
        <div className="generated-secret">
          <p className="small">Copy it now and give it to your receiver: it is shown only this once. After saving, the channel only says it is set.</p>
          <div className="secret-row">
            <label htmlFor={`${id}-generated`} className="visually-hidden">
              Generated signing secret
            </label>
            <input id={`${id}-generated`} ref={shown} type="text" readOnly value={generated} className="secret" onFocus={(e) => e.target.select()} />
            <button type="button" className="button" onClick={copy}>
              <Icon name={copied === 'yes' ? 'check' : 'copy'} />
              Copy<span className="visually-hidden"> the signing secret</span>
            </button>
          </div>
          <p className="small muted" role="status">
            {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'Copying was refused: the secret is selected, press Ctrl+C or ⌘C.' : ''}
          </p>
        </div>
      ) : null}
      {error ? <FieldMessage id={errorId}>{error}</FieldMessage> : null}
    </div>
  );
}
