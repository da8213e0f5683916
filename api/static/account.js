// The header's account area: who is signed in (GET /v1/me with the account token kept by this browser),
// and a way to sign out. Signing up and in happens on the home page.
import { el, api, accountToken, keepAccountToken } from "/static/common.js";

const area = document.getElementById("account");

export async function currentAccount() {
  const token = accountToken();
  if (!token) return null;
  try {
    return await api("/v1/me", { token });
  } catch (failure) {
    if (failure.status === 401) keepAccountToken(null); // revoked or replaced elsewhere: forget it
    return null;
  }
}

async function draw() {
  const me = await currentAccount();
  if (!me) { area.replaceChildren(el("span", { class: "muted" }, "Not signed in")); return; }
  area.replaceChildren(el("span", { id: "signed-in-as" }, `Signed in as ${me.name}`), " ",
    el("button", { type: "button", id: "sign-out", onclick: () => { keepAccountToken(null); location.reload(); } }, "Sign out"));
}

if (area) draw();
