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

window.htmx = htmx;
document.addEventListener("htmx:configRequest", (event) => {
  event.detail.headers["X-CSRFToken"] = csrfToken();
});
document.addEventListener("htmx:afterSwap", (event) => typeset(event.target));
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => typeset());
} else {
  typeset();
}
