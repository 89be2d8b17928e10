// The answer on screen as the static shell of index.html shows it, and a visitor's own last
// answer kept for their next visit to the same question. tools/postbuild.mjs minifies it into
// `answer-<hash>.js`, which the loader imports once the app has started (nothing before the first
// answer needs it); tools/prerender.mjs puts it in the page before its scripts.
//
// window.__answerShell(lang): the app's advisor, once it shows an answer, copied as the shell that
// paints it before the wasm arrives. Input values, selections and check marks are properties, not
// attributes: they are written out as attributes first. The preset list (a <datalist>, never
// painted), the form's unchosen options (a closed select paints only its chosen one), the charts
// (below the first screen, a third of the page's nodes), the every-card table and the options
// after the first four (below the first screen, more than half of the HTML) are left out: the app
// brings them below what is already on screen, so nothing visible moves. The copy is marked
// `inert`, `data-answer` and `data-lang` (which the shell's script checks). Inline styles go (an
// embed's accent colour, set through CSSOM: the policy forbids style attributes in markup; the app
// sets it again). tools/prerender.mjs writes the default question's answer into the shell with it.
//
// On leaving the page the app writes the address and the saved inputs, then marks
// `<html data-left>` (src/ui/app.rs, in its `pagehide` listener); the observer below runs right
// after that listener, so it sees what was written. The answer on screen then goes to localStorage
// (`gpu-advisor/answer`) with the build it came from (`<html data-build>`, a hash of the build's
// files: tools/postbuild.mjs) and the address's query, which the app keeps equal to the question
// on screen (src/state/url.rs `render`). The shell's script (index.html) shows it on the next
// visit whose question has that very query (the same link, or the saved inputs it was left with),
// from the same build, in the same language. Nothing is kept while the answer on screen may not be
// the question's: an input in error (the last valid result stays), a ranking still running for
// the latest input (`aria-busy`), notes about the link, or another view.
window.__answerShell = (lang) => {
  const app = [...document.querySelectorAll('#app-root > .app')].find((e) => e.querySelector('.recommend-list__option'));
  if (!app) return null;
  const copy = app.cloneNode(true);
  const live = app.querySelectorAll('input, select, textarea');
  copy.querySelectorAll('input, select, textarea').forEach((el, i) => {
    const from = live[i];
    if (el.tagName === 'SELECT') {
      [...el.options].forEach((o, j) => o.toggleAttribute('selected', from.options[j].selected));
    } else if (el.tagName === 'TEXTAREA') {
      el.textContent = from.value;
    } else if (el.type === 'checkbox' || el.type === 'radio') {
      el.toggleAttribute('checked', from.checked);
    } else {
      el.setAttribute('value', from.value);
    }
  });
  copy.querySelectorAll('datalist').forEach((d) => d.replaceChildren());
  copy.querySelectorAll('select.advisor-form__input option:not([selected])').forEach((o) => o.remove());
  copy.querySelectorAll('.frontier-chart, .pareto-chart, .sizing-table').forEach((c) => c.remove());
  copy.querySelectorAll('.recommend-list__option').forEach((o, i) => i >= 4 && o.remove());
  copy.querySelectorAll('[style]').forEach((e) => e.removeAttribute('style'));
  copy.removeAttribute('style');
  copy.id = 'shell';
  copy.setAttribute('inert', '');
  copy.setAttribute('data-answer', '');
  copy.setAttribute('data-lang', lang);
  return copy.outerHTML;
};

new MutationObserver(() => {
  const build = document.documentElement.getAttribute('data-build');
  const root = document.getElementById('app-root');
  if (!build || !root || document.getElementById('shell')) return;
  if (root.querySelector('.advisor-view__stale, .url-notes__item, .field-row__error, [aria-busy="true"]')) return;
  const html = window.__answerShell(document.documentElement.lang.slice(0, 2));
  try {
    if (html) localStorage.setItem('gpu-advisor/answer', JSON.stringify({ b: build, q: location.search.slice(1), h: html }));
  } catch { /* storage full or blocked: the next visit starts on the bare frame */ }
}).observe(document, { attributes: true, attributeFilter: ['data-left'], subtree: true });
