import { type FormEvent, useId, useRef, useState } from 'react';
import { EMAIL_SETTINGS_LIMITS } from '../../../contract/limits.ts';
import { EmailSecurity, type GetEmailSettingsResponse } from '../../../proto/gen/settings/v1/settings_pb.js';
import type { ScreenProps } from '../app.tsx';
import type { ApiError } from '../api.ts';
import { ErrorNote, Loading, PageHeader } from '../components.tsx';
import { useEmailSettings, useSendTestEmail, useUpdateEmailSettings } from '../data/email-settings.ts';
import { Field, FieldMessage, FormProblems, matchViolations, useFocusOnRefusal } from '../forms.tsx';
import { asApiError, loadedOf } from '../hooks.ts';
import { When } from '../time.tsx';
import { isoOf } from './page-form-parts.tsx';
import './email-settings.css';

// Settings, General, Email: the mail server subscriber mail and email alerts leave by, and a test
// send that says what the server answered. STATUSDESK_SMTP_URL and STATUSDESK_MAIL_FROM win over
// what is saved here; what they set is shown read-only.

const SECURITY_CHOICES: { value: EmailSecurity; label: string; hint: string }[] = [
  { value: EmailSecurity.STARTTLS, label: 'STARTTLS', hint: 'Usually port 587. Refused when the server does not offer it.' },
  { value: EmailSecurity.TLS, label: 'TLS', hint: 'TLS from the start, usually port 465.' },
  { value: EmailSecurity.NONE, label: 'None', hint: 'Plain SMTP, for a relay on this machine or network.' },
];

interface Values {
  host: string;
  port: string;
  security: EmailSecurity;
  username: string;
  password: string;
  from: string;
}

const valuesOf = (settings: GetEmailSettingsResponse | undefined): Values => {
  const stored = settings?.stored;
  return {
    host: stored?.host ?? '',
    port: String(stored?.port ?? EMAIL_SETTINGS_LIMITS.port.default),
    security: stored?.security ?? EmailSecurity.STARTTLS,
    username: stored?.username ?? '',
    password: '',
    from: stored?.from ?? '',
  };
};

export function EmailSettingsScreen({ workspace }: ScreenProps) {
  const query = useEmailSettings(workspace.id);
  const settings = loadedOf(query);
  return (
    <>
      <PageHeader title="Email">
        The mail server the service sends email through: confirmation links and notices to page subscribers, and alerts of email channels without a mail server
        of their own. These settings are the service's, for every workspace.
      </PageHeader>
      {settings.state === 'loading' ? <Loading what="the email settings" /> : null}
      {settings.state === 'error' ? <ErrorNote>{settings.error.message}</ErrorNote> : null}
      {settings.state === 'ready' && query.isFetchedAfterMount ? (
        <>
          <EmailStatus settings={settings.value} />
          <EmailSettingsForm workspaceId={workspace.id} settings={settings.value} />
          {settings.value.available ? <TestEmailForm workspaceId={workspace.id} /> : null}
        </>
      ) : null}
    </>
  );
}

function EmailStatus({ settings }: { settings: GetEmailSettingsResponse }) {
  if (settings.smtpUrlFromEnvironment) {
    return (
      <p className="note email-note email-status" role="note">
        <span>
          Email is set up: the mail server is set by the environment (<code>STATUSDESK_SMTP_URL</code>), which wins over the settings below. Change it where the
          service is started.
        </span>
      </p>
    );
  }
  if (settings.available) {
    return (
      <p className="note email-note email-status" role="note">
        <span>
          Email is set up. Saved <When iso={isoOf(settings.stored?.updatedAt)} />.
        </span>
      </p>
    );
  }
  return (
    <p className="note note-warning email-status" role="note">
      <span>
        Email is not set up: the service sends no email until a mail server is saved here. Subscribers cannot sign up by email, and email channels need a mail
        server of their own.
      </span>
    </p>
  );
}

function EmailSettingsForm({ workspaceId, settings }: { workspaceId: string; settings: GetEmailSettingsResponse }) {
  const update = useUpdateEmailSettings(workspaceId);
  const [values, setValues] = useState(() => valuesOf(settings));
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useFocusOnRefusal(form, error);
  const id = useId();
  const errors = matchViolations(error, ['host', 'port', 'security', 'username', 'password', 'from']);
  const serverFromEnvironment = settings.smtpUrlFromEnvironment;
  const fromFromEnvironment = settings.mailFromFromEnvironment;
  const set = (change: Partial<Values>) => {
    setSaved(false);
    setValues((v) => ({ ...v, ...change }));
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setSaved(false);
    try {
      await update.mutateAsync({
        host: values.host.trim(),
        port: /^\d+$/.test(values.port.trim()) ? Number(values.port.trim()) : -1,
        security: values.security,
        username: values.username.trim(),
        // Left empty: the stored password stays.
        ...(values.password === '' ? {} : { password: values.password }),
        from: values.from.trim(),
      });
      setValues((v) => ({ ...v, password: '' }));
      setSaved(true);
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  const environmentHint = 'Set by the environment: read-only here.';
  return (
    <section aria-labelledby={`${id}-heading`} className="card section">
      <h2 id={`${id}-heading`}>Mail server</h2>
      <form ref={form} className="email-form" onSubmit={submit} noValidate>
        <FormProblems error={error} errors={errors} />
        <fieldset className="email-fields" disabled={serverFromEnvironment}>
          <legend className="visually-hidden">SMTP server</legend>
          {serverFromEnvironment ? <p className="small muted">{environmentHint} (STATUSDESK_SMTP_URL)</p> : null}
          <div className="email-server">
            <Field label="Host" hint="The SMTP server, e.g. smtp.example.com." error={errors.of('host')}>
              {(control) => (
                <input
                  {...control}
                  type="text"
                  value={values.host}
                  autoComplete="off"
                  placeholder="smtp.example.com"
                  onChange={(e) => set({ host: e.target.value })}
                />
              )}
            </Field>
            <Field label="Port" hint={`1 to ${EMAIL_SETTINGS_LIMITS.port.max}; 587 or 465 as a rule.`} error={errors.of('port')}>
              {(control) => (
                <input
                  {...control}
                  type="number"
                  inputMode="numeric"
                  min={EMAIL_SETTINGS_LIMITS.port.min}
                  max={EMAIL_SETTINGS_LIMITS.port.max}
                  value={values.port}
                  onChange={(e) => set({ port: e.target.value })}
                />
              )}
            </Field>
          </div>
          <fieldset className={`radios${errors.of('security') ? ' field-invalid' : ''}`}>
            <legend>Security</legend>
            {SECURITY_CHOICES.map((choice) => (
              <div className="radio" key={choice.value}>
                <input
                  type="radio"
                  id={`${id}-security-${choice.value}`}
                  name={`${id}-security`}
                  checked={values.security === choice.value}
                  aria-describedby={`${id}-security-${choice.value}-hint`}
                  onChange={() => set({ security: choice.value })}
                />
                <label htmlFor={`${id}-security-${choice.value}`}>{choice.label}</label>
                <small id={`${id}-security-${choice.value}-hint`}>{choice.hint}</small>
              </div>
            ))}
            {errors.of('security') ? <FieldMessage id={`${id}-security-message`}>{errors.of('security')}</FieldMessage> : null}
          </fieldset>
          <div className="email-server">
            <Field label="Username" hint="Empty: the server is used without logging in." error={errors.of('username')}>
              {(control) => <input {...control} type="text" value={values.username} autoComplete="off" onChange={(e) => set({ username: e.target.value })} />}
            </Field>
            <Field
              label="Password"
              hint={settings.stored?.passwordSet ? 'A password is saved (never shown). Empty: it stays.' : 'Stored sealed; never shown again.'}
              error={errors.of('password')}
            >
              {(control) => (
                <input
                  {...control}
                  type="password"
                  value={values.password}
                  autoComplete="new-password"
                  maxLength={EMAIL_SETTINGS_LIMITS.password.max}
                  placeholder={settings.stored?.passwordSet ? '••••••••' : ''}
                  onChange={(e) => set({ password: e.target.value })}
                />
              )}
            </Field>
          </div>
        </fieldset>
        <fieldset className="email-fields" disabled={serverFromEnvironment || fromFromEnvironment}>
          <legend className="visually-hidden">Sender</legend>
          <Field
            label="From"
            hint={fromFromEnvironment ? `${environmentHint} (STATUSDESK_MAIL_FROM)` : 'The sender, e.g. Status <status@example.com>.'}
            error={errors.of('from')}
          >
            {(control) => (
              <input
                {...control}
                type="text"
                value={values.from}
                autoComplete="off"
                placeholder="Status <status@example.com>"
                onChange={(e) => set({ from: e.target.value })}
              />
            )}
          </Field>
        </fieldset>
        {serverFromEnvironment ? null : (
          <div className="form-actions">
            <button type="submit" className="button button-primary" disabled={busy}>
              Save email settings
            </button>
            <span role="status" className="small muted">
              {saved ? 'Email settings saved.' : ''}
            </span>
          </div>
        )}
      </form>
    </section>
  );
}

function TestEmailForm({ workspaceId }: { workspaceId: string }) {
  const sendTest = useSendTestEmail(workspaceId);
  const [to, setTo] = useState('');
  const [error, setError] = useState<ApiError>();
  const [answer, setAnswer] = useState<{ delivered: boolean; answer: string }>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useFocusOnRefusal(form, error);
  const id = useId();
  const errors = matchViolations(error, ['to']);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setAnswer(undefined);
    try {
      const result = await sendTest.mutateAsync({ to: to.trim() });
      setAnswer({ delivered: result.delivered, answer: result.answer });
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={`${id}-heading`} className="card section">
      <h2 id={`${id}-heading`}>Send a test email</h2>
      <form ref={form} className="email-form" onSubmit={submit} noValidate>
        <FormProblems error={error} errors={errors} />
        <Field label="To" hint="A message is sent there now, through the mail server above." error={errors.of('to')}>
          {(control) => (
            <input
              {...control}
              type="email"
              value={to}
              autoComplete="email"
              placeholder="you@example.com"
              onChange={(e) => {
                // A new address asks anew: the last answer was about another message.
                setAnswer(undefined);
                setTo(e.target.value);
              }}
            />
          )}
        </Field>
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Sending…' : 'Send a test email'}
          </button>
        </div>
        <div role="status" className="email-test-answer">
          {answer?.delivered ? (
            <p className="note email-note">
              <span>
                Sent. The mail server answered: <q>{answer.answer}</q>
              </span>
            </p>
          ) : null}
          {answer && !answer.delivered ? (
            <p className="note note-error">
              <span>Not sent: {answer.answer}</span>
            </p>
          ) : null}
        </div>
      </form>
    </section>
  );
}
