// The header's account area. Accounts come with the accounts feature; until then it says which seats
// this browser keeps.
import { el, accountToken } from "/static/common.js";

const area = document.getElementById("account");
if (area) {
  area.replaceChildren(accountToken() ? el("span", {}, "Signed in") : el("span", { class: "muted" }, "Not signed in"));
}
