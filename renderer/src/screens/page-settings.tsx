import { type ChangeEvent, type FormEvent, useId, useRef, useState } from 'react';
import { contrastRatio, textColorOn } from '../../../contract/contrast.ts';
import { PAGE_LIMITS } from '../../../contract/limits.ts';
import type { StatusPage } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import type { ApiError } from '../api.ts';
import { useUpdateStatusPage } from '../data/pages.ts';
import { Field, FormProblems, matchViolations, useFocusOnRefusal } from '../forms.tsx';
import { asApiError } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import type { PageSectionProps } from './page-form-parts.tsx';
import './page-settings.css';

// A page's own settings after its creation: its title, slug and description, its branding (logo,
// accent colour, link back) and its custom domain, saved in one UpdateStatusPage call. The
// service holds every rule; the form only says them and shows what the public page will draw.

const FIELDS = ['title', 'slug', 'description', 'accentColor', 'websiteUrl', 'logo', 'customDomain'];
const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
const KB = PAGE_LIMITS.logoBytes / 1024;

/** The logo as it stands in the form: kept as stored, replaced by a file, or removed. */
type LogoChoice = { kind: 'kept' } | { kind: 'new'; bytes: Uint8Array; type: string; name: string } | { kind: 'removed' };

/** Bytes as a `data:` address, for the preview (the dashboard's policy allows data: images, not blob:). */
function dataUrl(bytes: Uint8Array, type: string): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `data:${type};base64,${btoa(binary)}`;
}

export function PageSettingsSection({ workspaceId, page }: PageSectionProps) {
  // Saved, the page comes back with a new `updatedAt`: the form starts again from what was stored.
  return <PageSettingsForm key={`${page.id}:${page.updatedAt?.seconds ?? ''}:${page.updatedAt?.nanos ?? ''}`} workspaceId={workspaceId} page={page} />;
}

function PageSettingsForm({ workspaceId, page }: { workspaceId: string; page: StatusPage }) {
  const update = useUpdateStatusPage(workspaceId);
  const [title, setTitle] = useState(page.title);
  const [slug, setSlug] = useState(page.slug);
  const [description, setDescription] = useState(page.description);
  const [accentColor, setAccentColor] = useState(page.accentColor ?? '');
  const [websiteUrl, setWebsiteUrl] = useState(page.websiteUrl ?? '');
  const [customDomain, setCustomDomain] = useState(page.customDomain ?? '');
  const [logo, setLogo] = useState<LogoChoice>({ kind: 'kept' });
  const [logoProblem, setLogoProblem] = useState<string>();
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const headingId = useId();
  const form = useRef<HTMLFormElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  useFocusOnRefusal(form, error);
  const errors = matchViolations(error, FIELDS);

  const slugChanges = slug.trim() !== page.slug;
  const colour = /^#[0-9a-f]{6}$/i.test(accentColor.trim()) ? accentColor.trim().toLowerCase() : undefined;
  const shownLogo =
    logo.kind === 'new' ? dataUrl(logo.bytes, logo.type) : logo.kind === 'kept' && page.logo && page.logoType ? dataUrl(page.logo, page.logoType) : undefined;

  const chooseLogo = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    setLogoProblem(undefined);
    if (!file) return;
    // Said before sending: the service refuses the same, naming the field.
    if (!LOGO_TYPES.includes(file.type))
      return setLogoProblem(`${file.name} is not a PNG, JPEG, WebP or GIF image (SVG is not accepted: it can carry scripts).`);
    if (file.size > PAGE_LIMITS.logoBytes) return setLogoProblem(`${file.name} is ${Math.ceil(file.size / 1024)} KB; a logo may be at most ${KB} KB.`);
    setLogo({ kind: 'new', bytes: new Uint8Array(await file.arrayBuffer()), type: file.type, name: file.name });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await update.mutateAsync({
        id: page.id,
        title: title.trim(),
        slug: slug.trim(),
        description: description.trim(),
        // The empty string (or empty bytes) clears a field; a field left out keeps its value.
        accentColor: accentColor.trim(),
        websiteUrl: websiteUrl.trim(),
        customDomain: customDomain.trim(),
        logo: logo.kind === 'new' ? logo.bytes : logo.kind === 'removed' ? new Uint8Array() : undefined,
      });
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={headingId} className="section page-settings">
      <h2 id={headingId}>Page settings</h2>
      <form ref={form} className="stack-form" onSubmit={submit} noValidate>
        <FormProblems error={error} errors={errors} />
        <div className="form-grid">
          <Field label="Title" error={errors.of('title')}>
            {(control) => (
              <input {...control} type="text" value={title} maxLength={PAGE_LIMITS.titleLength} onChange={(event) => setTitle(event.target.value)} />
            )}
          </Field>
          <Field
            label="Slug"
            hint={
              <>
                The page's address, <code>/status/{slug.trim() || 'slug'}</code>: lower-case letters, digits and hyphens.
                {slugChanges ? (
                  <>
                    {' '}
                    After saving, <code>/status/{page.slug}</code> forwards to the new address, and no other page can take it, until the slug changes again.
                  </>
                ) : null}
              </>
            }
            error={errors.of('slug')}
          >
            {(control) => (
              <input
                {...control}
                type="text"
                value={slug}
                maxLength={PAGE_LIMITS.slugLength}
                spellCheck={false}
                autoCapitalize="off"
                autoComplete="off"
                onChange={(event) => setSlug(event.target.value)}
              />
            )}
          </Field>
        </div>
        <Field label="Description (optional)" hint="Shown under the title." error={errors.of('description')}>
          {(control) => (
            <textarea
              {...control}
              value={description}
              rows={2}
              maxLength={PAGE_LIMITS.descriptionLength}
              onChange={(event) => setDescription(event.target.value)}
            />
          )}
        </Field>

        <h3>Branding</h3>
        <div className="form-grid">
          <Field
            label="Accent colour (optional)"
            hint={
              colour ? (
                <>
                  The band above the title. Its text will be {textColorOn(colour) === '#000000' ? 'black' : 'white'}, at{' '}
                  {contrastRatio(colour, textColorOn(colour)).toFixed(1)}:1.
                </>
              ) : (
                <>
                  As <code>#rrggbb</code>, e.g. <code>#1d4ed8</code>. Its text is black or white, whichever reads better: every colour keeps 4.5:1 or more.
                </>
              )
            }
            error={errors.of('accentColor')}
          >
            {(control) => (
              <div className="colour-input">
                <input
                  {...control}
                  type="text"
                  value={accentColor}
                  maxLength={PAGE_LIMITS.accentColorLength}
                  placeholder="#1d4ed8"
                  spellCheck={false}
                  autoComplete="off"
                  onChange={(event) => setAccentColor(event.target.value)}
                />
                <input
                  type="color"
                  aria-label="Pick the accent colour"
                  value={colour ?? '#1d4ed8'}
                  onChange={(event) => setAccentColor(event.target.value)}
                  className="colour-picker"
                />
              </div>
            )}
          </Field>
          <Field
            label="Link to your site (optional)"
            hint="An http:// or https:// address, shown as “Back to …” above the title."
            error={errors.of('websiteUrl')}
          >
            {(control) => (
              <input
                {...control}
                type="url"
                value={websiteUrl}
                maxLength={PAGE_LIMITS.websiteUrlLength}
                placeholder="https://www.example.com"
                onChange={(event) => setWebsiteUrl(event.target.value)}
              />
            )}
          </Field>
        </div>
        <Field
          label="Logo (optional)"
          hint={`A PNG, JPEG, WebP or GIF file of at most ${KB} KB, shown above the title. SVG is not accepted.`}
          error={logoProblem ?? errors.of('logo')}
        >
          {(control) => (
            <div className="logo-input">
              <input {...control} ref={fileInput} type="file" accept={LOGO_TYPES.join(',')} onChange={(event) => void chooseLogo(event)} />
              {shownLogo ? (
                <button
                  type="button"
                  className="button button-small button-danger-quiet"
                  onClick={() => {
                    setLogo({ kind: 'removed' });
                    if (fileInput.current) fileInput.current.value = '';
                  }}
                >
                  <Icon name="trash" />
                  Remove the logo
                </button>
              ) : null}
              {logo.kind === 'removed' ? <span className="muted small">The logo is removed when you save.</span> : null}
            </div>
          )}
        </Field>
        <BrandBand accentColor={colour} logo={shownLogo} websiteUrl={websiteUrl.trim() || undefined} />

        <h3>Custom domain</h3>
        <Field
          label="Domain (optional)"
          hint={
            <>
              A name such as <code>status.example.com</code> whose DNS or reverse proxy sends its requests to this service: the page is then served at its{' '}
              <code>/</code>, and nothing else of Statusdesk is reachable under it. No scheme, port or IP address.
            </>
          }
          error={errors.of('customDomain')}
        >
          {(control) => (
            <input
              {...control}
              type="text"
              value={customDomain}
              maxLength={PAGE_LIMITS.customDomainLength}
              placeholder="status.example.com"
              spellCheck={false}
              autoCapitalize="off"
              autoComplete="off"
              onChange={(event) => setCustomDomain(event.target.value)}
            />
          )}
        </Field>

        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={busy}>
            Save settings
          </button>
        </div>
      </form>
    </section>
  );
}

/** The band the public page draws above its title, as the settings form and the preview show it; nothing without branding. */
export function BrandBand({ accentColor, logo, websiteUrl }: { accentColor: string | undefined; logo: string | undefined; websiteUrl: string | undefined }) {
  if (!accentColor && !logo && !websiteUrl) return null;
  return (
    <div className="brand-preview-frame">
      <p className="muted small">The top of the public page:</p>
      <div className="brand-preview" style={accentColor ? { background: accentColor, color: textColorOn(accentColor) } : undefined} data-testid="brand-preview">
        {logo ? <img src={logo} alt="" /> : null}
        {websiteUrl ? <span className="brand-preview-link">Back to {hostOf(websiteUrl)}</span> : null}
      </div>
    </div>
  );
}

/** The stored branding of `page`, as BrandBand takes it. */
export function storedBranding(page: StatusPage) {
  return {
    accentColor: page.accentColor,
    logo: page.logo && page.logoType ? dataUrl(page.logo, page.logoType) : undefined,
    websiteUrl: page.websiteUrl,
  };
}

/** The host name a link shows: `example.com` for https://www.example.com/about. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}
