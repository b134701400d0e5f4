// Regenerates jsrules.jsonl: JavaScript's own answers for the string rules the
// reference relies on. Run with: node tests/jsrules/generate.mjs > tests/jsrules/jsrules.jsonl
// The regular expressions below are the reference's Markdown and note patterns.

const interesting = [
  " ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u1680", "\u2000", "\u2005", "\u200a",
  "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff",
  // not JavaScript whitespace, though some are Python's
  "\u001c", "\u001d", "\u001e", "\u001f", "\u0085", "\u180e", "\u200b", "\u00ad",
  // astral, combining and plain characters
  "\u{1F600}", "\u0301", "x", "#", ">", "[", "]", "-", "*", "+", "~", "/",
];

const shapes = (c) => [
  c, `${c}a`, `a${c}`, `a${c}b`, `${c}${c}a${c}${c}`, `${c}\n${c}`, `a\r\n${c}`,
  `- [${c}] task`, `* [${c}]${c}task${c}`, `-${c}[x]${c}a`, `- [x] a${c}`, `+ [x]${c}`,
  `#${c}Head${c}`, `##${c}${c}`, `####### h`, `# a${c}b #`,
  `${c}> note`, `  >${c}note${c}`, `>${c}`, `  > a${c}b`, `> ${c}`,
];

const NOTE = /^\s*>\s?(.*)$/;
const HEADING = /^#{1,6}\s+(.+?)\s*$/;
const TASK = /^[-*+]\s*\[(.?)\]\s+(.+?)\s*$/;
const groups = (m) => (m ? Array.from(m).slice(1) : null);

for (const c of interesting) {
  for (const s of shapes(c)) {
    console.log(JSON.stringify({
      s,
      trim: s.trim(),
      trim_end: s.replace(/\s+$/u, ""),
      lines: s.split(/\r?\n/),
      note: groups(NOTE.exec(s)),
      heading: groups(HEADING.exec(s.trim())),
      task: groups(TASK.exec(s.trim())),
    }));
  }
}
