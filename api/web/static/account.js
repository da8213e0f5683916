// The header's account area: who is signed in (GET /v1/me, authenticated by the browser's HttpOnly session
// cookie), and a form to sign out (POST /session/end clears the cookie). Signing up and in: the home page.
import { el, api, postForm } from "/static/common.js";

const area = document.getElementById("account");

export async function currentAccount() {
  try {
    return await api("/v1/me");
  } catch (failure) {
    if (failure.status === 401) return null; // not signed in, or the token was revoked or replaced
    throw failure;
  }
}

async function draw() {
  const me = await currentAccount();
  if (!me) { area.replaceChildren(el("span", { class: "muted" }, "Not signed in")); return; }
  area.replaceChildren(el("span", { id: "signed-in-as" }, `Signed in as ${me.name}`), " ",
    postForm("/session/end", { id: "sign-out-form", class: "inline-form" }, el("button", { type: "submit", id: "sign-out" }, "Sign out")));
}

if (area) draw().catch(() => area.replaceChildren(el("span", { class: "muted" }, "Accounts are unavailable")));
