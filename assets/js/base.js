// Every page: htmx (sending Django's CSRF token on its requests) and KaTeX, which typesets
// the TeX the server leaves in .math elements (without JavaScript the TeX source stays readable).
import htmx from "htmx.org";

export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

// KaTeX is a separate chunk, loaded only by pages that have math.
export async function typeset(root = document) {
  const found = root.querySelectorAll(".math:not([data-typeset])");
  if (!found.length) return;
  const { default: katex } = await import("katex");
  for (const el of found) {
    el.dataset.typeset = "1";
    katex.render(el.textContent, el, { displayMode: el.tagName === "DIV", throwOnError: false });
  }
}

// A code block wider than the screen scrolls sideways (on a phone, most do): keyboard users
// reach it with Tab and scroll it with the arrow keys (WCAG 2.1.1; axe's
// scrollable-region-focusable). Every block, since the width can change after load.
// Each region is numbered: regions of one name are landmarks a screen reader cannot tell
// apart (axe's landmark-unique). The count runs over the page, htmx swaps included.
const regionCounts = { Code: 0, Formula: 0 };
export function scrollablesFocusable(root = document) {
  for (const block of root.querySelectorAll("pre, .block.math")) {
    if (!block.hasAttribute("tabindex")) {
      block.tabIndex = 0;
      block.setAttribute("role", "region");
      const what = block.tagName === "PRE" ? "Code" : "Formula";
      regionCounts[what] += 1;
      block.setAttribute("aria-label", `${what} ${regionCounts[what]} (scrolls sideways)`);
    }
  }
}

function ready(root) {
  typeset(root);
  scrollablesFocusable(root);
}

// A form with data-confirm-text asks before it is sent: always, or with
// data-confirm-if-edited only when the fields it names were typed in or (boxes) checked
// otherwise (sending it would drop them).
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.dataset?.confirmText;
  if (!question) return;
  const watched = form.dataset.confirmIfEdited;
  const edited = (field) =>
    field.type === "radio" || field.type === "checkbox" ? field.checked !== field.defaultChecked : field.value !== field.defaultValue;
  const asks = !watched || [...document.querySelectorAll(watched)].some(edited);
  if (asks && !window.confirm(question)) event.preventDefault();
});

// A search box with data-filter-rows hides the rows (a CSS selector) whose text lacks what
// is typed; hidden rows keep their inputs, so a checked box stays checked and is sent.
document.addEventListener("input", (event) => {
  const box = event.target;
  const selector = box.dataset?.filterRows;
  if (!selector) return;
  const wanted = box.value.trim().toLowerCase();
  const rows = [...document.querySelectorAll(selector)];
  let shown = 0;
  for (const row of rows) {
    const match = !wanted || row.textContent.toLowerCase().includes(wanted);
    row.hidden = !match;
    shown += match ? 1 : 0;
  }
  const count = box.parentElement.querySelector("[data-filter-count]");
  if (count) count.textContent = wanted ? `${shown} of ${rows.length} shown` : "";
});

window.htmx = htmx;
document.addEventListener("htmx:configRequest", (event) => {
  event.detail.headers["X-CSRFToken"] = csrfToken();
});
document.addEventListener("htmx:afterSwap", (event) => ready(event.target));
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => ready(document));
} else {
  ready(document);
}
