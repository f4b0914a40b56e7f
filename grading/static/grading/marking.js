// Keyboard marking: 1-4 pick a level of the current criterion and move on to the next one,
// n/p move between criteria without picking, Ctrl+Enter saves and opens the next answer.
// Typing in a text field (the comment, the reason, the adjustment) is never intercepted.
const form = document.getElementById("mark-form");
const criteria = form ? [...form.querySelectorAll("fieldset.criterion")] : [];
let current = 0;

function focusCriterion(index) {
  current = Math.max(0, Math.min(criteria.length - 1, index));
  const box = criteria[current];
  const target = box.querySelector("input:checked") || box.querySelector("input");
  target?.focus();
}

function pick(level) {
  const input = criteria[current]?.querySelectorAll("input[type=radio]")[level];
  if (!input) return;
  input.checked = true;
  focusCriterion(current + 1 < criteria.length ? current + 1 : current);
}

// Whether keys typed into `element` are text: a textarea, a select or an input other than a
// radio button or a checkbox.
function typesText(element) {
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) return true;
  return element instanceof HTMLInputElement && !["radio", "checkbox"].includes(element.type);
}

criteria.forEach((box, index) => box.addEventListener("focusin", () => { current = index; }));

document.addEventListener("keydown", (event) => {
  if (!form) return;
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    form.requestSubmit(document.getElementById("save-next"));
    return;
  }
  if (typesText(event.target) || event.altKey || event.ctrlKey || event.metaKey) return;
  if (/^[1-9]$/.test(event.key)) { event.preventDefault(); pick(Number(event.key) - 1); }
  else if (event.key === "n") { event.preventDefault(); focusCriterion(current + 1); }
  else if (event.key === "p") { event.preventDefault(); focusCriterion(current - 1); }
});
