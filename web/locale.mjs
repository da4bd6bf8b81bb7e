// The app's words in one language, read from assets/locales/<lang>/*.ftl, so a browser test
// finds a control by the name the app gives it in that language. `say(key, vars)` is the text
// as the app shows it; `like(key)` a RegExp for it with each variable matching anything.
import fs from 'node:fs';
import path from 'node:path';
import { REPO } from './harness.mjs';

/** Every message of `lang`: key → its text as written (multiline values joined by "\n"). */
export function messages(lang) {
  const dir = path.join(REPO, 'assets', 'locales', lang);
  const out = new Map();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ftl')).sort()) {
    let key = null;
    let lines = [];
    const flush = () => {
      if (key) out.set(key, lines.join('\n').trim());
      key = null;
      lines = [];
    };
    for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      const start = line.match(/^([a-zA-Z][\w-]*) *= *(.*)$/);
      if (start) {
        flush();
        [, key] = start;
        lines = [start[2]];
      } else if (key && /^\s+\S/.test(line)) {
        lines.push(line.trim());
      } else if (key && line.trim() === '') {
        lines.push('');
      } else {
        flush();
      }
    }
    flush();
  }
  return out;
}

// Fluent's string literals ({"{"}) as the characters they stand for.
const literals = (s) => s.replace(/\{\s*"([^"]*)"\s*\}/g, '$1');

/** The words of `lang`: `say(key, vars)` and `like(key)`. */
export function locale(lang) {
  const all = messages(lang);
  const text = (key) => {
    if (!all.has(key)) throw new Error(`no message ${key} in ${lang}`);
    return all.get(key);
  };
  return {
    lang,
    say: (key, vars = {}) => literals(text(key).replace(/\{\s*\$(\w+)\s*\}/g, (_, v) => String(vars[v] ?? ''))),
    like: (key) => {
      const parts = text(key).split(/\{\s*\$\w+\s*\}/).map((p) => literals(p).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      return new RegExp(parts.join('.*?'));
    },
  };
}

/** The words of `lang` found by their English text: `word('Lessons')` is the Spanish tab's
 * name under `es`. Throws when English has no message that reads so, or when the messages that
 * do read differently in `lang` (the test would not know which one the app shows). */
export function translator(lang) {
  const english = messages('en');
  const there = locale(lang);
  const keysOf = (text) => [...english.entries()].filter(([, v]) => literals(v) === text).map(([k]) => k);
  return {
    word: (text) => {
      const keys = keysOf(text);
      if (keys.length === 0) throw new Error(`no English message reads "${text}"`);
      const said = [...new Set(keys.map((k) => there.say(k)))];
      if (said.length > 1) throw new Error(`"${text}" is ${said.join(' or ')} in ${lang}`);
      return said[0];
    },
    say: there.say,
    like: there.like,
  };
}

/** A RegExp for message `key` of `lang` with the variable `capture` matched as a number in a
 * group and every other variable as anything. */
export function numbered(lang, key, capture) {
  const text = messages(lang).get(key);
  if (text === undefined) throw new Error(`no message ${key} in ${lang}`);
  const esc = (s) => literals(s).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const parts = text.split(/(\{\s*\$\w+\s*\})/);
  return new RegExp(parts.map((p) => {
    const v = p.match(/^\{\s*\$(\w+)\s*\}$/);
    if (!v) return esc(p);
    return v[1] === capture ? '(\\d+)' : '.*?';
  }).join(''));
}
