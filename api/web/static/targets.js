// Acting on the board: each command of `legal` that names a thing drawn on the board (a Johari card, store,
// booth, noble or action card; a Bazaar equation's side or ware) makes that thing a control, highlighted;
// everything else on the board stays inert. Which things are targets is read from `legal` alone: the
// page knows where a command's card or place is drawn, never whether the rules allow it.
import { distinctLabels } from "/static/commands.js";

/** The board element a command acts on (by the data attributes boards.js draws), or null. */
function targetOf(board, game, c) {
  const find = (selector) => board.querySelector(selector);
  if (game === "johari") {
    if (typeof c.card === "number") return find(`[data-card="${c.card}"]`);
    if (c.type === "purchase" || c.type === "trade_from_store") return find(`[data-place="${CSS.escape(c.place)}"]`);
    if (c.type === "hire_noble") return find(`[data-noble="${c.noble}"]`);
    if (c.type === "play_action_card") return find(`[data-action-card="${CSS.escape(c.card)}"]`);
  }
  if (game === "bazaar") {
    if (c.type === "trade") return find(`[data-equation="${c.equation}"][data-side="${c.give}"]`);
    if (c.type === "buy") return find(`[data-ware="${c.ware}"]`);
  }
  return null;
}

/** Make the board's targets of `legal` controls. A target with one command sends it when activated; one
 * with several (a store to purchase or trade for) offers them in `menu`. Returns the commands that have
 * no target on the board (they stay buttons). `label(command)` gives a command's words. */
export function armBoard(board, game, legal, { label, send, menu }) {
  const byTarget = new Map();
  const rest = [];
  for (const command of legal) {
    const target = targetOf(board, game, command);
    if (target) byTarget.set(target, [...(byTarget.get(target) || []), command]);
    else rest.push(command);
  }
  const targets = [...byTarget];
  const named = distinctLabels(targets.map(([, commands]) => (commands.length === 1 ? label(commands[0]) : `${commands.map(label).join(", or ")}: choose`)));
  for (const [i, [target, commands]] of targets.entries()) {
    const words = named[i]; // two cards alike (in one display) are told apart
    target.classList.add("target");
    target.setAttribute("role", "button");
    target.setAttribute("tabindex", "0");
    target.setAttribute("aria-label", words);
    target.setAttribute("title", words);
    target.dataset.commands = JSON.stringify(commands);
    const act = () => (commands.length === 1 ? send(commands[0]) : menu(target, commands));
    target.addEventListener("click", (e) => { e.stopPropagation(); act(); });
    target.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); e.stopPropagation(); act(); }
    });
  }
  if (byTarget.size) board.classList.add("acting");
  return rest;
}
