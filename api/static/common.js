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

/** Call the API; resolves to the parsed JSON (null for 204), rejects with the problem's detail. */
export async function api(path, { method = "GET", body, token, headers = {} } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
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
  return data;
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

// The account token (sign-in), when accounts are available.
const ACCOUNT_KEY = "bazaar.account";
export function accountToken() { return localStorage.getItem(ACCOUNT_KEY); }
export function keepAccountToken(token) {
  if (token) localStorage.setItem(ACCOUNT_KEY, token); else localStorage.removeItem(ACCOUNT_KEY);
}

/** The JSON of a <script type="application/json" id=...> block. */
export function pageData(id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
}
