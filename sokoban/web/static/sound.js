// Optional sound: a few short tones made with WebAudio, nothing loaded. Off by default; the
// player turns it on in the play menu.

import { prefs } from "./ui.js";

let audio = null;

/** Each sound as [frequency in Hz, seconds] notes played one after the other. */
const TONES = {
  push: [[196, 0.05]],
  goal: [[523, 0.07], [784, 0.1]],
  solved: [[523, 0.09], [659, 0.09], [784, 0.09], [1047, 0.3]],
};

/** Play a sound ("push", "goal", "solved") when sound is on. */
export function tone(kind) {
  if (!prefs().sound || !TONES[kind]) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    audio = audio || new Context();
    let at = audio.currentTime + 0.01;
    for (const [frequency, seconds] of TONES[kind]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "triangle";
      osc.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.12, at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + seconds);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + seconds + 0.02);
      at += seconds * 0.9;
    }
  } catch (error) {
    // No audio here: play goes on in silence.
  }
}
