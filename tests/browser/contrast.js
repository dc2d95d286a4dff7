// The contrast of every visible piece of text against what is really behind it (backgrounds
// composited up the tree, opacity included), by WCAG 2's formula; charts (SVG) are left out.
// tests/browser/test_phone_and_keyboard.py evaluates it on each page, in both themes.
(() => {
  const parse = c => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
    const p = m[1].split(',').map(parseFloat); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
  const over = (top, under) => ({r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a), a: 1});
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const behind = el => { const chain = []; for (let e = el; e; e = e.parentElement) chain.push(e);
    let c = {r: 255, g: 255, b: 255, a: 1}, alpha = 1;
    for (const e of chain.reverse()) { const cs = getComputedStyle(e); const b = parse(cs.backgroundColor);
      alpha *= parseFloat(cs.opacity); if (b && b.a > 0) c = over(b, c); }
    return [c, alpha]; };
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg, .chart, select, script, style, [hidden], details:not([open]) > :not(summary)')) continue;
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const cs = getComputedStyle(el), box = el.getBoundingClientRect();
    if (cs.visibility !== 'visible' || !box.width || !box.height || el.closest('[disabled]')) continue;
    const [bg, alpha] = behind(el), fg = parse(cs.color);
    const seen = over({...fg, a: fg.a * alpha}, bg);
    const l1 = lum(seen), l2 = lum(bg), ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    out.push({ratio: Math.round(ratio * 100) / 100, text: el.textContent.trim().slice(0, 40),
      tag: el.tagName, cls: String(el.className), color: cs.color});
  }
  return out;
})
