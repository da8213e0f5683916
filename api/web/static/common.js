// Shared helpers of the pages: DOM building, API calls, the tokens this browser keeps.
// Plain ES modules, no build step, no framework; everything is served by the service itself.

/** Build an element: el("p", {class: "x"}, "text", child). Attributes starting with "on" become listeners. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Enable the page's controls that wait for their script (`data-needs-script`: served `disabled`, so a click
 * made before the script bound its handler is not one that does nothing or submits a form natively; see
 * docs/web.md "Controls wait for their script"). Each of `owned` is such a control or holds some (a form, a
 * panel); a script calls this once it has bound their handlers. */
export function bound(...owned) {
  for (const root of owned) {
    if (!root) continue;
    for (const control of [root, ...root.querySelectorAll("[data-needs-script]")]) {
      if (!control.hasAttribute("data-needs-script")) continue;
      control.removeAttribute("data-needs-script");
      control.disabled = false;
    }
  }
}

/** The page's CSRF token (the csrftoken cookie the server sets on pages; see api/routes/sessions.py). */
export function csrfToken() {
  const found = document.cookie.split(";").map((c) => c.trim()).find((c) => c.startsWith("csrftoken="));
  return found ? found.slice("csrftoken=".length) : "";
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** Call the API; resolves to the parsed JSON (null for 204), rejects with the problem's detail.
 * With a token it acts as that token's seat or account; without one, as the signed-in account (the
 * browser sends its HttpOnly session cookie), or as nobody with `anonymous` (the cookie is not sent). */
export async function api(path, options = {}) {
  return (await apiAnswer(path, options)).data;
}

/** `api`, with how far the server's clock is ahead of this browser's, in ms, from the answer's `Date`
 * header: the header counts whole seconds, so the server's time lies within the second after it (its middle
 * is taken), and the answer was made somewhere between sending and receiving (their middle is taken). */
export async function apiWithSkew(path, options = {}) {
  const sent = Date.now();
  const { data, response } = await apiAnswer(path, options);
  const received = Date.now();
  const date = Date.parse(response.headers.get("Date") || "");
  return { data, skew: Number.isNaN(date) ? 0 : date + 500 - (sent + received) / 2 };
}

async function apiAnswer(path, { method = "GET", body, token, headers = {}, anonymous = false } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers }, credentials: anonymous ? "omit" : "same-origin" };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (!SAFE.has(method)) init.headers["X-CSRFToken"] = csrfToken();
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = new Error((data && (data.detail || data.title)) || `HTTP ${response.status}`);
    error.status = response.status;
    error.problem = data;
    throw error;
  }
  return { data, response };
}

// Seat tokens this browser holds, per game: {"<game id>": {"0": "<token>", ...}} in localStorage.
// A seat token is the only key to a seat; it stays in this browser and is sent only in Authorization.
const SEATS_KEY = "bazaar.seats";

export function seatTokens(gameId) {
  const all = JSON.parse(localStorage.getItem(SEATS_KEY) || "{}");
  return all[gameId] || {};
}

export function keepSeatToken(gameId, seat, token) {
  const all = JSON.parse(localStorage.getItem(SEATS_KEY) || "{}");
  all[gameId] = { ...(all[gameId] || {}), [seat]: token };
  localStorage.setItem(SEATS_KEY, JSON.stringify(all));
}

/** Forget a seat's token (it was handed to a friend: this browser no longer plays that seat). */
export function forgetSeatToken(gameId, seat) {
  const all = JSON.parse(localStorage.getItem(SEATS_KEY) || "{}");
  if (all[gameId]) delete all[gameId][seat];
  localStorage.setItem(SEATS_KEY, JSON.stringify(all));
}

// Signing in keeps the account token in an HttpOnly session cookie set by the server (POST /session), so
// no script of the page can read it; the page's API calls carry it by themselves.
localStorage.removeItem("bazaar.account"); // where earlier versions of these pages kept it

/** Sign this browser in with an account token (the server checks it and sets the session cookie). */
export async function signIn(token) {
  const response = await fetch("/session", {
    method: "POST", credentials: "same-origin",
    headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
    body: new URLSearchParams({ token }),
  });
  if (!response.ok) {
    const problem = await response.json().catch(() => null);
    throw new Error((problem && (problem.detail || problem.title)) || `HTTP ${response.status}`);
  }
}

/** A form that posts to the pages with the CSRF token (works without any further script). */
export function postForm(action, attrs, ...children) {
  return el("form", { method: "post", action, ...attrs },
    el("input", { type: "hidden", name: "_csrf_token", value: csrfToken() }), ...children);
}

/** The JSON of a <script type="application/json" id=...> block. */
export function pageData(id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
}
