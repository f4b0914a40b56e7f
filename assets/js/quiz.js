// The quiz page: a clock that follows the server's deadline, autosave through the JSON API
// (debounced, retried with back-off, typed text kept in localStorage until the server has
// it), a banner when another tab saved first (409), answered markers, submit with a
// confirmation, and submit at the deadline. CodeMirror 6 edits code answers.
import { csrfToken } from "./base.js";

const state = JSON.parse(document.getElementById("attempt-state").textContent);
const resultUrl = document.getElementById("quiz-script").dataset.resultUrl;
const maxAnswerBytes = Number(document.getElementById("quiz-script").dataset.maxAnswerBytes);
const api = `/api/attempts/${state.id}`;
// Text not yet on the server is kept per browser tab (the tab's id lives in sessionStorage, so
// it survives a reload): one tab never overwrites or clears what another tab kept. Each entry
// records the answer's version it was typed over, so a reload never saves it over a newer
// answer another tab saved meanwhile (it is offered back instead).
const tabId =
  sessionStorage.getItem("vivabank:tab") ??
  (() => {
    const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
    sessionStorage.setItem("vivabank:tab", id);
    return id;
  })();
const keyPrefix = (pos) => `vivabank:attempt:${state.id}:${pos}`;
const storeKey = (pos) => `${keyPrefix(pos)}:${tabId}`;
const versions = new Map(state.responses.map((r) => [r.position, r.version]));
const types = new Map(state.responses.map((r) => [r.position, r.type]));
const pending = new Map(); // position -> answer not yet on the server
// The answer each question last had on this page: a "change" event (the field losing focus)
// that changes nothing is not a new answer to save, nor one "not saved yet" at submit.
const lastSeen = new Map(state.responses.map((r) => [r.position, JSON.stringify(r.answer ?? null)]));
const timers = new Map();
let retryDelay = 1000;
let stale = false;
let submitting = false;

const $ = (sel) => document.querySelector(sel);
const saveState = $("[data-save-state]");

function showSave(kind, text) {
  saveState.dataset.state = kind;
  saveState.textContent = text;
}

// --- answers ------------------------------------------------------------------
function readAnswer(pos) {
  const section = document.getElementById(`q${pos}`);
  const inputs = [...section.querySelectorAll(`[name="q${pos}"]`)];
  const type = types.get(pos);
  if (type === "single_choice") {
    const picked = inputs.find((i) => i.checked);
    return picked ? { choice: Number(picked.value) } : null;
  }
  if (type === "multiple_choice") {
    return { choices: inputs.filter((i) => i.checked).map((i) => Number(i.value)) };
  }
  if (type === "true_false") {
    const picked = inputs.find((i) => i.checked);
    return picked ? { value: picked.value === "true" } : null;
  }
  const value = inputs.length ? inputs[0].value : "";
  if (type === "numeric") return value.trim() === "" ? null : { value: value.trim() };
  if (type === "code") return { source: value };
  return value === "" ? null : { text: value };
}

function writeAnswer(pos, answer) {
  const section = document.getElementById(`q${pos}`);
  const inputs = [...section.querySelectorAll(`[name="q${pos}"]`)];
  const type = types.get(pos);
  if (type === "single_choice") inputs.forEach((i) => (i.checked = answer && Number(i.value) === answer.choice));
  else if (type === "multiple_choice") inputs.forEach((i) => (i.checked = !!answer && answer.choices.includes(Number(i.value))));
  else if (type === "true_false") inputs.forEach((i) => (i.checked = !!answer && String(answer.value) === i.value));
  else if (inputs.length) {
    const value = answer ? (answer.source ?? answer.text ?? answer.value ?? "") : "";
    inputs[0].value = String(value);
  }
}

function markAnswered(pos, answer) {
  const link = document.querySelector(`[data-nav="${pos}"]`);
  if (!link) return;
  const answered = answer !== null && !(answer.choices && answer.choices.length === 0);
  link.dataset.answered = String(answered);
  link.querySelector("[data-nav-label]").textContent = answered ? " answered" : " not answered";
}

// --- autosave -------------------------------------------------------------------
function changed(pos) {
  const answer = readAnswer(pos);
  markAnswered(pos, answer);
  const seen = JSON.stringify(answer);
  if (!pending.has(pos) && lastSeen.get(pos) === seen) return;
  lastSeen.set(pos, seen);
  pending.set(pos, answer);
  localStorage.setItem(storeKey(pos), JSON.stringify({ answer, version: versions.get(pos), at: Date.now() }));
  // Measured as the server does (compact JSON, UTF-8): said while typing, not after a 413.
  const size = new TextEncoder().encode(JSON.stringify(answer)).length;
  const banner = $("[data-error-banner]");
  if (maxAnswerBytes && size > maxAnswerBytes) {
    clearTimeout(timers.get(pos));
    banner.hidden = false;
    const over = (size - maxAnswerBytes).toLocaleString("en-GB");
    banner.textContent = `Question ${pos + 1}: the answer is ${size.toLocaleString("en-GB")} bytes; the limit is ${maxAnswerBytes.toLocaleString("en-GB")}. Shorten it by at least ${over} (a plain letter or digit is one byte, an accented letter two): it is not saved while it is longer.`;
    showSave("error", "Not saved: an answer is too long");
    return;
  }
  if (banner.textContent.startsWith(`Question ${pos + 1}: the answer is`)) banner.hidden = true;
  if (stale) {
    // Nothing more is saved from an out-of-date page; the text stays in this browser.
    showSave("error", "Not saved: this page is out of date; reload it (your typing is kept)");
    return;
  }
  showSave("saving", "Saving…");
  clearTimeout(timers.get(pos));
  timers.set(pos, setTimeout(() => save(pos), 800));
}

// One PUT per answer at a time: two at once (a retry timer and the "online" event) would send
// the same version, and the second would look like another tab's change.
const inflight = new Map();

function save(pos) {
  if (inflight.has(pos)) return inflight.get(pos).then(() => save(pos));
  const running = sendSave(pos).finally(() => inflight.delete(pos));
  inflight.set(pos, running);
  return running;
}

async function sendSave(pos) {
  if (stale || !pending.has(pos)) return true;
  const answer = pending.get(pos);
  let reply;
  try {
    reply = await fetch(`${api}/responses/${pos}/`, {
      method: "PUT",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      credentials: "same-origin",
      body: JSON.stringify({ answer, version: versions.get(pos) }),
    });
  } catch {
    return offline(pos);
  }
  if (reply.ok) return saved(pos, answer, await reply.json());
  return refused(pos, reply);
}

function saved(pos, answer, body) {
  versions.set(pos, body.version);
  retryDelay = 1000;
  if (JSON.stringify(pending.get(pos)) === JSON.stringify(answer)) {
    pending.delete(pos);
    localStorage.removeItem(storeKey(pos));
  }
  const banner = $("[data-error-banner]");
  if (banner.textContent.startsWith(`Question ${pos + 1}:`)) banner.hidden = true; // fixed now
  clearFieldError(pos);
  if (!pending.size) showSave("saved", `Saved at ${new Date().toLocaleTimeString("en-GB")}`);
  return true;
}

function offline(pos) {
  showSave("offline", "Offline, retrying… your answers are kept in this browser");
  clearTimeout(timers.get(pos));
  timers.set(pos, setTimeout(() => save(pos), retryDelay));
  retryDelay = Math.min(retryDelay * 2, 30000);
  return false;
}

async function refused(pos, reply) {
  let error = {};
  try {
    error = (await reply.json()).error || {};
  } catch {
    error = {};
  }
  if (reply.status === 409 && error.code === "stale_version") {
    stale = true;
    $("[data-stale-banner]").hidden = false;
    showSave("error", "Not saved: changed elsewhere");
  } else if (reply.status === 409) {
    goToResult(); // the attempt was submitted (deadline or another tab)
  } else if (reply.status >= 500) {
    return offline(pos);
  } else {
    const banner = $("[data-error-banner]");
    banner.hidden = false;
    banner.textContent = `Question ${pos + 1}: ${error.message || "this answer was not accepted"}`;
    showFieldError(pos, error.message || "This answer was not accepted.");
    showSave("error", `Not saved: question ${pos + 1} says why`);
  }
  return false;
}

// The refusal beside the answer too, where the student is typing (the banner is at the top).
function showFieldError(pos, message) {
  const section = document.getElementById(`q${pos}`);
  let note = section.querySelector("[data-field-error]");
  if (!note) {
    note = document.createElement("p");
    note.className = "field-error";
    note.dataset.fieldError = "";
    note.id = `q${pos}-error`;
    section.append(note);
  }
  note.textContent = message;
  for (const input of section.querySelectorAll(`[name="q${pos}"]`)) {
    input.setAttribute("aria-invalid", "true");
    if (!input.hasAttribute("aria-describedby")) input.setAttribute("aria-describedby", note.id);
  }
}

function clearFieldError(pos) {
  const section = document.getElementById(`q${pos}`);
  section.querySelector("[data-field-error]")?.remove();
  for (const input of section.querySelectorAll(`[name="q${pos}"]`)) {
    input.removeAttribute("aria-invalid");
    if (input.getAttribute("aria-describedby") === `q${pos}-error`) input.removeAttribute("aria-describedby");
  }
}

window.addEventListener("online", () => [...pending.keys()].forEach((pos) => save(pos)));
$("[data-reload]").addEventListener("click", () => location.reload());

// Text kept in this browser for an answer (this tab's, or one a closed tab left), newest first.
function keptEntries(pos) {
  const entries = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key !== keyPrefix(pos) && !key.startsWith(`${keyPrefix(pos)}:`)) continue;
    try {
      entries.push({ key, ...JSON.parse(localStorage.getItem(key)) });
    } catch {
      localStorage.removeItem(key);
    }
  }
  return entries.sort((a, b) => (b.at ?? 0) - (a.at ?? 0));
}

function forget(entries) {
  entries.forEach(({ key }) => localStorage.removeItem(key));
}

// This tab's kept text (after a reload), else the newest a closed tab left, is restored and
// saved when it was typed over the answer the server still holds; typed over an answer saved
// since (in another tab), it is offered back, never saved over it. Another tab's text is
// never dropped here unless the server already has it: that tab may still be open.
function restoreKept({ position, version, answer: saved }) {
  const entries = keptEntries(position);
  const held = entries.filter((entry) => JSON.stringify(entry.answer) === JSON.stringify(saved));
  forget(held);
  const rest = entries.filter((entry) => !held.includes(entry));
  const chosen = rest.find((entry) => entry.key === storeKey(position)) ?? rest[0];
  if (!chosen) return;
  if (chosen.version === version) {
    forget([chosen]); // now this tab's pending answer, kept again under its own key
    writeAnswer(position, chosen.answer);
    changed(position);
    return;
  }
  offerKept(position, chosen.answer, [chosen]);
}

function keptText(answer) {
  if (answer === null) return "no answer";
  const text = answer.source ?? answer.text ?? answer.value;
  return text === undefined ? "a different choice" : String(text);
}

function offerKept(pos, answer, entries) {
  const offer = document.createElement("div");
  offer.className = "banner";
  offer.setAttribute("role", "alert");
  const said = document.createElement("p");
  said.textContent = `Question ${pos + 1}: what you typed here earlier was not saved, and a newer answer has been saved since (in another tab or window). The newer answer is shown; your earlier text:`;
  const text = document.createElement("pre");
  text.textContent = keptText(answer);
  const use = document.createElement("button");
  use.type = "button";
  use.textContent = "Use my earlier text";
  const drop = document.createElement("button");
  drop.type = "button";
  drop.className = "secondary";
  drop.textContent = "Keep the newer answer";
  use.addEventListener("click", () => {
    forget(entries);
    offer.remove();
    writeAnswer(pos, answer);
    changed(pos);
  });
  drop.addEventListener("click", () => {
    forget(entries);
    offer.remove();
  });
  offer.append(said, text, use, " ", drop);
  document.getElementById(`q${pos}`).prepend(offer);
}
// CodeMirror is a separate chunk, loaded only when the attempt has a code question.
if (document.querySelector("textarea[data-code]")) {
  import("./editor.js").then(({ mountEditors }) =>
    mountEditors(document, (textarea) => textarea.dispatchEvent(new Event("input", { bubbles: true }))),
  );
}
for (const section of document.querySelectorAll("[data-position]")) {
  const pos = Number(section.dataset.position);
  section.addEventListener("input", () => changed(pos));
  section.addEventListener("change", () => changed(pos));
}
state.responses.forEach(restoreKept);
if (pending.size) {
  showSave("saving", "Saving answers kept in this browser…");
  [...pending.keys()].forEach((pos) => save(pos));
}

// --- clock: remaining time from the server's deadline and server_time, never the client clock
const clock = $("[data-clock]");
const warning = $("[data-clock-warning]");
const loadedAt = performance.now();
const leftAtLoad = state.deadline ? Date.parse(state.deadline) - Date.parse(state.server_time) : null;
const warned = new Set();

function tick() {
  const left = leftAtLoad - (performance.now() - loadedAt);
  const seconds = Math.max(0, Math.ceil(left / 1000));
  const h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
  clock.textContent = `${h ? `${h}:` : ""}${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
  clock.classList.toggle("low", seconds <= 300);
  for (const minutes of [5, 1]) {
    if (seconds <= minutes * 60 && seconds > 0 && !warned.has(minutes)) {
      warned.add(minutes);
      const left = Math.ceil(seconds / 60); // a short quiz starts under the 5-minute mark
      warning.textContent = `${left} minute${left > 1 ? "s" : ""} left.`;
    }
  }
  if (seconds === 0) submit(true);
  else setTimeout(tick, 250);
}
if (leftAtLoad !== null) tick();

// --- submit -------------------------------------------------------------------
function goToResult() {
  submitting = true;
  location.assign(resultUrl);
}

async function submit(atDeadline) {
  if (submitting) return;
  submitting = true;
  // At the deadline too: text typed in the last second is still waiting for its save, and a
  // grace period lets the server take it.
  const saves = await Promise.all([...pending.keys()].map((pos) => save(pos)));
  if (!atDeadline) {
    // Submitting now would leave out an answer the server has not taken.
    if ((stale && pending.size) || saves.includes(false)) {
      submitting = false;
      showSave("error", "Not submitted: an answer is not saved yet; submit again once it is");
      return;
    }
  }
  showSave("saving", atDeadline ? "Time is up: submitting…" : "Submitting…");
  let reply;
  try {
    reply = await fetch(`${api}/submit/`, {
      method: "POST",
      headers: { "X-CSRFToken": csrfToken(), "Idempotency-Key": `page-${state.id}` },
      credentials: "same-origin",
    });
  } catch {
    return submitAgainSoon(atDeadline, "Offline: the attempt will be submitted when you are back online");
  }
  if (reply.status >= 500) {
    return submitAgainSoon(atDeadline, "The server could not take the submission yet; trying again…");
  }
  if (!reply.ok) {
    let error = {};
    try {
      error = (await reply.json()).error || {};
    } catch {
      error = {};
    }
    submitting = false;
    const banner = $("[data-error-banner]");
    banner.hidden = false;
    banner.textContent = `Not submitted: ${error.message || `the server refused it (${reply.status})`}`;
    showSave("error", "Not submitted: see the message above");
    return;
  }
  // An answer the server never took stays in this browser (README: kept until the server has it).
  for (const { position } of state.responses) {
    if (!pending.has(position)) forget(keptEntries(position));
  }
  goToResult();
}

function submitAgainSoon(atDeadline, text) {
  submitting = false;
  showSave("offline", text);
  setTimeout(() => submit(atDeadline), 2000);
}

const dialog = $("[data-confirm]");
$("[data-submit]").addEventListener("click", () => {
  const missing = state.responses
    .filter(({ position }) => document.querySelector(`[data-nav="${position}"]`).dataset.answered !== "true")
    .map(({ position }) => position + 1);
  const unsaved = [...pending.keys()].sort((a, b) => a - b).map((position) => position + 1);
  const answered = missing.length
    ? `Not answered: question${missing.length > 1 ? "s" : ""} ${missing.join(", ")}.`
    : "Every question has an answer.";
  const waiting = unsaved.length
    ? ` Not saved yet: question${unsaved.length > 1 ? "s" : ""} ${unsaved.join(", ")} (submitting saves them first, or says why it cannot).`
    : "";
  dialog.querySelector("[data-unanswered]").textContent = answered + waiting;
  dialog.showModal();
  // With questions left unanswered, Enter keeps working rather than submitting.
  dialog.querySelector(missing.length ? "[data-confirm-no]" : "[data-confirm-yes]").focus();
});
$("[data-confirm-no]").addEventListener("click", () => dialog.close());
$("[data-confirm-yes]").addEventListener("click", () => {
  dialog.close();
  submit(false);
});

// --- Run: queue the code, then poll its job id until the output is there ------------------
async function runCode(pos, button) {
  const out = document.querySelector(`[data-run-output="${pos}"]`);
  const source = document.getElementById(`q${pos}-input`).value;
  const headers = { "Content-Type": "application/json", "X-CSRFToken": csrfToken() };
  button.disabled = true;
  out.textContent = "Running…";
  try {
    // A run belongs to this attempt's code question: the server refuses it once answers close.
    const request = JSON.stringify({ code: source, attempt: state.id, position: pos });
    const started = await fetch("/code-runs/", { method: "POST", headers, body: request });
    const body = await started.json();
    if (started.status !== 202) throw new Error(body.error?.message || body.detail || "the run was refused");
    // A warm worker answers in tens of milliseconds: look soon, then every half second.
    for (let tries = 0; tries < 120; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(500, 100 * 2 ** tries)));
      const polled = await (await fetch(`/code-runs/${body.job}/`)).json();
      if (polled.finished) return showRun(out, polled);
    }
    throw new Error("no worker answered; try again");
  } catch (error) {
    out.textContent = `Not run: ${error.message}`;
  } finally {
    button.disabled = false;
  }
}

// A run's status (runner/types.py Status) in words: a student never reads "output_limit".
const RUN_OUTCOMES = {
  ok: "Finished",
  error: "Stopped with an error",
  timeout: "Stopped: too slow",
  memory: "Stopped: out of memory",
  output_limit: "Stopped: too much output",
  forbidden: "Not run",
  internal: "Not run: the sandbox failed; try again",
};

function showRun(out, result) {
  out.replaceChildren();
  const title = document.createElement("p");
  const outcome = RUN_OUTCOMES[result.status] ?? `Finished: ${result.status}`;
  title.textContent = `${outcome}${result.message ? ` (${result.message})` : ""}`;
  out.append(title);
  for (const [name, text] of [["Output", result.stdout], ["Errors", result.stderr]]) {
    if (!text) continue;
    const label = document.createElement("p");
    label.textContent = name;
    const pre = document.createElement("pre");
    pre.textContent = text;
    out.append(label, pre);
  }
  if (!result.stdout && !result.stderr && result.status === "ok") {
    const hint = document.createElement("p");
    hint.className = "muted";
    hint.textContent =
      "No output. Run executes your code as a script and shows what it prints: to try your function, call it and print the result below it, e.g. print(your_function(...)). The checks are run when you submit.";
    out.append(hint);
  }
}

for (const button of document.querySelectorAll("[data-run]")) {
  button.addEventListener("click", () => runCode(Number(button.dataset.run), button));
}

// A page brought back from the browser's history cache (Back after submitting) shows the
// attempt as it was then: load it again, and the server sends a submitted one to its result.
window.addEventListener("pageshow", (event) => {
  if (event.persisted) window.location.reload();
});
