// Sounds of the table (issue 10): your turn, the reveal, a win. Short tones made with the
// Web Audio API (nothing is downloaded). Off by default on phones (a touch screen or a
// small one), on elsewhere; the switch is remembered in localStorage ("gutskit.sound").

const KEY = "gutskit.sound";
// Each sound: [frequency in Hz, start in s, length in s] notes of a sine tone.
const TONES = {
  turn: [[660, 0, 0.12], [880, 0.14, 0.16]],
  reveal: [[523, 0, 0.09], [659, 0.1, 0.09], [784, 0.2, 0.14]],
  win: [[784, 0, 0.12], [988, 0.13, 0.12], [1175, 0.26, 0.24]],
};

let context = null;
export const played = []; // the sounds asked for, in order (the end-to-end tests read it)

/** Whether this device is a phone: a coarse pointer (touch) or a small screen. */
export function isPhone() {
  return window.matchMedia("(pointer: coarse)").matches || window.matchMedia("(max-width: 720px)").matches;
}

/** Whether sounds are on: the saved choice, else off on phones and on elsewhere. */
export function soundOn() {
  const saved = localStorage.getItem(KEY);
  if (saved === "1" || saved === "0") return saved === "1";
  return !isPhone();
}

export function setSound(on) {
  localStorage.setItem(KEY, on ? "1" : "0");
  if (on) unlock();
}

/** Browsers start audio only after a user gesture: call from one (a click). */
export function unlock() {
  try {
    context = context || new AudioContext();
    if (context.state === "suspended") context.resume();
  } catch {
    context = null; // no Web Audio: silent
  }
}

/** Play sound `name` ("turn", "reveal", "win") if sounds are on. */
export function play(name) {
  if (!soundOn() || !TONES[name]) return;
  played.push(name);
  try {
    context = context || new AudioContext();
    const now = context.currentTime;
    for (const [freq, start, length] of TONES[name]) {
      const osc = context.createOscillator();
      const gain = context.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + start);
      gain.gain.exponentialRampToValueAtTime(0.18, now + start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      osc.connect(gain).connect(context.destination);
      osc.start(now + start);
      osc.stop(now + start + length + 0.05);
    }
  } catch {
    // no Web Audio: silent
  }
}
