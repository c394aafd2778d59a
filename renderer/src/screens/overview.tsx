import type { ScreenProps } from '../app.tsx';
import { PageHeader } from '../components.tsx';
import { Icon } from '../icons.tsx';
import { Link } from '../router.tsx';

export function OverviewScreen({ workspace }: ScreenProps) {
  return (
    <>
      <PageHeader title="Overview">{workspace ? <>Statusdesk is running for {workspace.name}.</> : <>Statusdesk is running.</>}</PageHeader>
      <section className="card placeholder" aria-labelledby="overview-next">
        <span className="placeholder-icon" aria-hidden="true">
          <Icon name="pulse" />
        </span>
        <h2 id="overview-next">Monitors are coming to this window</h2>
        <p>
          The next release adds monitors, their results and status pages here. Until then, manage them with the <code>statusdesk</code> command or the API.
        </p>
      </section>
      <div className="tiles">
        <Link to="/keys" className="tile">
          <Icon name="key" />
          <span>
            <strong>API keys</strong>
            <small>Keys for scripts and the statusdesk command</small>
          </span>
        </Link>
        <Link to="/connections" className="tile">
          <Icon name="plug" />
          <span>
            <strong>Connected apps</strong>
            <small>AI editors you approved, and requests waiting for you</small>
          </span>
        </Link>
      </div>
    </>
  );
}
