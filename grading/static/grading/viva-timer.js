// The examiner's elapsed-time display; the server keeps the real times.
const timer = document.getElementById("viva-timer");
if (timer) {
  const started = Date.parse(timer.dataset.started);
  const tick = () => {
    const seconds = Math.max(0, Math.floor((Date.now() - started) / 1000));
    const pad = (n) => String(n).padStart(2, "0");
    timer.textContent = `${Math.floor(seconds / 60)}:${pad(seconds % 60)}`;
  };
  tick();
  setInterval(tick, 1000);
}
