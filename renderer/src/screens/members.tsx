import { type FormEvent, useId, useState } from 'react';
import type { ApiError, Workspace } from '../api.ts';
import { ActionsTable, ConfirmDialog, ErrorNote, Loading, PageHeader, SecretOnce } from '../components.tsx';
import {
  article,
  type Invitation,
  type Member,
  type Role,
  useChangeRole,
  useInvitations,
  useInvite,
  useMembers,
  useRemoveMember,
  useRevokeInvitation,
} from '../data/members.ts';
import { asApiError, loadedOf, useConfirmedAction } from '../hooks.ts';
import { navigate } from '../router.tsx';
import { When } from '../time.tsx';
import './members.css';

const ROLE_LABEL: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };
const ROLE_HINT: Record<Role, string> = {
  member: 'Reads everything; manages monitors, pages, reports and maintenance',
  admin: 'Also channels, API keys, private locations, email and members',
  owner: 'Also the workspace itself and its plan',
};
const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };
const EXPIRIES = [
  { hours: 24, label: '1 day' },
  { hours: 72, label: '3 days' },
  { hours: 168, label: '7 days' },
];
const INVITATION_STATE: Record<Invitation['state'], string> = { pending: 'Pending', accepted: 'Accepted', expired: 'Expired', revoked: 'Withdrawn' };

export function MembersScreen({ workspace }: { workspace: Workspace }) {
  const members = loadedOf(useMembers(workspace.id));
  const you = members.state === 'ready' ? members.value.you : undefined;
  const manages = you?.role === 'owner' || you?.role === 'admin';

  return (
    <>
      <PageHeader title="Members">The people of {workspace.name} and their roles. Owners and admins invite people with a link that works once.</PageHeader>
      {members.state === 'loading' ? <Loading what="members" /> : null}
      {members.state === 'error' ? <ErrorNote>{members.error.message}</ErrorNote> : null}
      {members.state === 'ready' && you ? (
        <>
          {manages ? <InviteSection workspace={workspace} yourRole={you.role} /> : null}
          <MemberList workspace={workspace} members={members.value.members} you={you} />
          {manages ? <InvitationList workspace={workspace} /> : null}
        </>
      ) : null}
    </>
  );
}

function InviteSection({ workspace, yourRole }: { workspace: Workspace; yourRole: Role }) {
  const invite = useInvite(workspace.id);
  const [role, setRole] = useState<Role>('member');
  const [note, setNote] = useState('');
  const [hours, setHours] = useState(72);
  const [error, setError] = useState<ApiError>();
  const [made, setMade] = useState<{ link: string; invitation: Invitation }>();
  const id = useId();
  const offered: Role[] = yourRole === 'owner' ? ['member', 'admin', 'owner'] : ['member', 'admin'];

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      const answer = await invite.mutateAsync({ role, note: note.trim(), expiresInHours: hours });
      setMade(answer);
      setNote('');
    } catch (caught) {
      setError(asApiError(caught));
    }
  };

  return (
    <>
      <section aria-labelledby={`${id}-heading`} className="card section">
        <h2 id={`${id}-heading`}>Invite someone</h2>
        <form className="invite-form" onSubmit={submit} aria-describedby={error ? `${id}-error` : undefined} noValidate>
          <fieldset className="radios invite-roles">
            <legend>Role</legend>
            {offered.map((option) => (
              <div className="radio" key={option}>
                <input
                  type="radio"
                  id={`${id}-${option}`}
                  name="invite-role"
                  value={option}
                  checked={role === option}
                  aria-describedby={`${id}-${option}-hint`}
                  onChange={() => setRole(option)}
                />
                <label htmlFor={`${id}-${option}`}>{ROLE_LABEL[option]}</label>
                <small id={`${id}-${option}-hint`}>{ROLE_HINT[option]}</small>
              </div>
            ))}
          </fieldset>
          <div className="invite-details">
            <div className="field">
              <label htmlFor={`${id}-note`}>Who it is for (optional)</label>
              <input
                id={`${id}-note`}
                type="text"
                value={note}
                maxLength={100}
                autoComplete="off"
                placeholder="Ana from support"
                onChange={(event) => setNote(event.target.value)}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-expiry`}>The link works for</label>
              <select id={`${id}-expiry`} value={hours} onChange={(event) => setHours(Number(event.target.value))}>
                {EXPIRIES.map((expiry) => (
                  <option key={expiry.hours} value={expiry.hours}>
                    {expiry.label}
                  </option>
                ))}
              </select>
            </div>
            <div className="invite-submit">
              <button type="submit" className="button button-primary" disabled={invite.isPending}>
                Create invitation link
              </button>
            </div>
          </div>
        </form>
        {error ? <ErrorNote id={`${id}-error`}>{error.message}</ErrorNote> : null}
      </section>
      {made ? (
        <SecretOnce
          heading={
            <>
              Invitation link{' '}
              {made.invitation.note ? (
                <>for {made.invitation.note}</>
              ) : (
                <>
                  for {article(made.invitation.role)} {made.invitation.role}
                </>
              )}
            </>
          }
          label="Invitation link"
          secret={made.link}
          onDone={() => setMade(undefined)}
        >
          Send it to the person you invite: it makes them {article(made.invitation.role)} {made.invitation.role} of {workspace.name}, works once, and expires{' '}
          <When iso={made.invitation.expiresAt} />. Copy it now: it will not be shown again.
        </SecretOnce>
      ) : null}
    </>
  );
}

/** Why a member's role or membership cannot be changed by the viewer, if it cannot. */
function lockedBecause(member: Member, yourRole: Role, owners: number): string | undefined {
  if (member.role === 'owner' && owners === 1) return 'The last owner: make another member an owner first.';
  if (member.role === 'owner' && yourRole !== 'owner') return 'Only an owner changes an owner.';
  return undefined;
}

function MemberList({ workspace, members, you }: { workspace: Workspace; members: Member[]; you: { userId: string; role: Role } }) {
  const changeRole = useChangeRole(workspace.id);
  const removeMember = useRemoveMember(workspace.id);
  const manages = you.role === 'owner' || you.role === 'admin';
  const owners = members.filter((m) => m.role === 'owner').length;
  const [roleError, setRoleError] = useState<string>();
  const demote = useConfirmedAction(({ member, role }: { member: Member; role: Role }) => changeRole.mutateAsync({ userId: member.userId, role }));
  const remove = useConfirmedAction(
    (member: Member) => removeMember.mutateAsync({ userId: member.userId, name: member.name, leaving: member.userId === you.userId }),
    async () => undefined,
  );
  const leaving = remove.target?.userId === you.userId;
  const id = useId();

  const choose = async (member: Member, role: Role) => {
    setRoleError(undefined);
    if (RANK[role] < RANK[member.role]) return demote.ask({ member, role });
    try {
      await changeRole.mutateAsync({ userId: member.userId, role });
    } catch (caught) {
      setRoleError(asApiError(caught).message);
    }
  };

  const confirmRemove = async () => {
    const wasLeaving = leaving;
    await remove.dialog.onConfirm();
    if (wasLeaving) navigate('/');
  };

  return (
    <section aria-labelledby={`${id}-heading`} className="section">
      <h2 id={`${id}-heading`}>Members of {workspace.name}</h2>
      {roleError ? <ErrorNote>{roleError}</ErrorNote> : null}
      <ActionsTable columns={['Name', 'Role', 'Joined']}>
        {members.map((member) => {
          const self = member.userId === you.userId;
          const locked = lockedBecause(member, you.role, owners);
          const reasonId = `${id}-${member.userId}-reason`;
          const offered: Role[] = you.role === 'owner' || member.role === 'owner' ? ['member', 'admin', 'owner'] : ['member', 'admin'];
          return (
            <tr key={member.userId}>
              <th scope="row">
                {member.name}
                {self ? <span className="badge member-you">you</span> : null}
              </th>
              <td>
                {manages ? (
                  <>
                    <select
                      aria-label={`Role of ${member.name}`}
                      value={member.role}
                      disabled={locked !== undefined || changeRole.isPending}
                      aria-describedby={locked ? reasonId : undefined}
                      onChange={(event) => void choose(member, event.target.value as Role)}
                    >
                      {offered.map((option) => (
                        <option key={option} value={option}>
                          {ROLE_LABEL[option]}
                        </option>
                      ))}
                    </select>
                    {locked ? (
                      <small id={reasonId} className="member-reason">
                        {locked}
                      </small>
                    ) : null}
                  </>
                ) : (
                  <span className={`badge${member.role === 'member' ? '' : ' badge-write'}`}>{ROLE_LABEL[member.role]}</span>
                )}
              </td>
              <td>
                <When iso={member.joinedAt} />
              </td>
              <td className="cell-actions">
                {self ? (
                  <button
                    type="button"
                    className="button button-small button-danger-quiet"
                    disabled={member.role === 'owner' && owners === 1}
                    aria-describedby={member.role === 'owner' && owners === 1 ? reasonId : undefined}
                    onClick={() => remove.ask(member)}
                  >
                    Leave workspace
                  </button>
                ) : manages ? (
                  <button
                    type="button"
                    className="button button-small button-danger-quiet"
                    disabled={locked !== undefined}
                    aria-describedby={locked ? reasonId : undefined}
                    onClick={() => remove.ask(member)}
                  >
                    Remove
                  </button>
                ) : null}
              </td>
            </tr>
          );
        })}
      </ActionsTable>

      <ConfirmDialog
        {...demote.dialog}
        title={`Make ${demote.target?.member.name ?? ''} ${demote.target ? article(demote.target.role) : 'a'} ${demote.target?.role ?? ''}?`}
        confirmLabel="Change role"
      >
        <p>
          {demote.target ? (
            <>
              {demote.target.member.name} is {article(demote.target.member.role)} {demote.target.member.role} now, and loses what only{' '}
              {demote.target.member.role}s may do:{' '}
              {demote.target.member.role === 'owner' ? 'the workspace itself and its plan' : 'channels, API keys, private locations, email and members'}.
            </>
          ) : null}
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        {...remove.dialog}
        onConfirm={confirmRemove}
        title={leaving ? `Leave ${workspace.name}?` : `Remove ${remove.target?.name ?? ''} from ${workspace.name}?`}
        confirmLabel={leaving ? 'Leave workspace' : 'Remove member'}
      >
        <p>
          {leaving ? 'You' : 'They'} no longer see {workspace.name}. The connected apps {leaving ? 'you' : 'they'} approved and the API keys{' '}
          {leaving ? 'you' : 'they'} made in it are revoked with {leaving ? 'you' : 'them'}: programs using them are refused from their next call. Coming back
          takes a new invitation.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function InvitationList({ workspace }: { workspace: Workspace }) {
  const invitations = loadedOf(useInvitations(workspace.id, true));
  const revokeInvitation = useRevokeInvitation(workspace.id);
  const withdraw = useConfirmedAction((invitation: Invitation) => revokeInvitation.mutateAsync(invitation.id));
  const id = useId();
  const named = (invitation: Invitation | undefined) =>
    invitation?.note ? `for ${invitation.note}` : `for ${invitation ? article(invitation.role) : 'a'} ${invitation?.role ?? ''}`;

  return (
    <section aria-labelledby={`${id}-heading`} className="section">
      <h2 id={`${id}-heading`}>Invitations</h2>
      {invitations.state === 'loading' ? <Loading what="invitations" /> : null}
      {invitations.state === 'error' ? <ErrorNote>{invitations.error.message}</ErrorNote> : null}
      {invitations.state === 'ready' && invitations.value.invitations.length === 0 ? (
        <div className="empty">
          <p>No invitations yet.</p>
        </div>
      ) : null}
      {invitations.state === 'ready' && invitations.value.invitations.length > 0 ? (
        <ActionsTable columns={['For', 'Role', 'State', 'Made by', 'Expires or accepted']}>
          {invitations.value.invitations.map((invitation) => (
            <tr key={invitation.id} className={invitation.state === 'pending' ? undefined : 'row-dim'}>
              <th scope="row">{invitation.note || <span className="muted">No note</span>}</th>
              <td>{ROLE_LABEL[invitation.role]}</td>
              <td>
                <span className={`status ${invitation.state === 'pending' ? 'status-on' : 'status-off'}`}>{INVITATION_STATE[invitation.state]}</span>
              </td>
              <td>{invitation.createdBy ?? <span className="muted">—</span>}</td>
              <td>
                {invitation.state === 'accepted' ? (
                  <>
                    By {invitation.acceptedBy ?? 'someone'}, <When iso={invitation.acceptedAt} />
                  </>
                ) : invitation.state === 'revoked' ? (
                  <span className="muted">—</span>
                ) : (
                  <>
                    {invitation.state === 'pending' ? 'Expires' : 'Expired'} <When iso={invitation.expiresAt} />
                  </>
                )}
              </td>
              <td className="cell-actions">
                {invitation.state === 'pending' ? (
                  <button
                    type="button"
                    className="button button-small button-danger-quiet"
                    aria-label={`Withdraw the invitation ${named(invitation)}`}
                    onClick={() => withdraw.ask(invitation)}
                  >
                    Withdraw
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </ActionsTable>
      ) : null}
      <ConfirmDialog {...withdraw.dialog} title={`Withdraw the invitation ${named(withdraw.target)}?`} confirmLabel="Withdraw">
        <p>Its link stops working at once. You can invite them again with a new one.</p>
      </ConfirmDialog>
    </section>
  );
}
