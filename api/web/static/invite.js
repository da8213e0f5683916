// Handing a seat to a friend: an invitation link per seat this browser holds, the seat token in the URL's
// fragment (`/games/{id}#seat-token=...`: a browser never sends a fragment to any server, nor in a Referer),
// shown once with a Copy button, after which this browser gives the seat up. The game page accepts such a
// link: it checks the token, keeps it as this browser's seat and wipes the fragment from the address bar
// and the history.
import { el, api, keepSeatToken, forgetSeatToken, seatTokens } from "/static/common.js";

const FRAGMENT = "seat-token";

/** Accept an invitation link opened on this page; resolves to the seat taken, or null when there is none. */
export async function acceptInvitation(gameId) {
  const given = new URLSearchParams(location.hash.slice(1)).get(FRAGMENT);
  if (!given) return null;
  history.replaceState(null, "", location.pathname + location.search); // the token leaves the address bar
  const found = await api(`/v1/games/${gameId}`, { token: given, anonymous: true });
  if (found.you === null || found.you === undefined) throw new Error("the link's token opens no seat of this game");
  keepSeatToken(gameId, found.you, given);
  return found.you;
}

/** The controls that make an invitation link for a seat this browser holds by its token (null when it
 * holds none); the link is shown in `shown`, which outlives a redraw of the controls. */
export function invitePanel(gameId, names, shown, onHandedOver) {
  const seats = Object.keys(seatTokens(gameId)).map(Number).sort((a, b) => a - b);
  if (!seats.length) return null;
  const select = el("select", { id: "invite-seat" }, seats.map((s) => el("option", { value: s }, names[s] ?? `seat ${s}`)));
  const make = el("button", { type: "button", id: "make-invite" }, "Make an invitation link");
  make.addEventListener("click", () => {
    const seat = Number(select.value);
    const token = seatTokens(gameId)[seat];
    if (!token) return;
    const link = `${location.origin}/games/${gameId}#${FRAGMENT}=${encodeURIComponent(token)}`;
    forgetSeatToken(gameId, seat); // handed over: shown this once, and this browser no longer plays the seat
    const field = el("input", { id: "invite-link", type: "text", readonly: true, value: link, size: 40, "aria-describedby": "invite-note" });
    const said = el("span", { id: "invite-copied", role: "status" });
    const copy = el("button", { type: "button", id: "copy-invite" }, "Copy link");
    copy.addEventListener("click", async () => {
      try { await navigator.clipboard.writeText(link); said.textContent = "Copied."; }
      catch (failure) { field.select(); said.textContent = "Select the link and copy it yourself (Ctrl+C)."; }
    });
    shown.replaceChildren(
      el("label", { for: "invite-link" }, `Invitation link for ${names[seat] ?? `seat ${seat}`}`), field, copy, said,
      el("p", { id: "invite-note", class: "hint" }, "Send it to your friend: whoever opens it plays this seat. It is shown only now, and this browser has given the seat up."));
    shown.hidden = false;
    onHandedOver(seat);
    document.getElementById("invite-link").focus();
  });
  return el("div", { class: "inline invite", role: "group", "aria-label": "Invite a friend to a seat" },
    el("label", { for: "invite-seat" }, "Invite a friend to"), select, make);
}
