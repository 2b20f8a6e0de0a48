// The event pages' live update (issue 34): polls the event's wait URL (the organiser's console
// waits there until the event's log passes data-event-seq; the public's projector is answered
// at once and asks again when the answer's next_ms says) and reloads the page when it moved; the console waits while a form field is in use and says so instead. The
// projector's pages (section[data-page]) rotate every 15 s, one at a time.
(function () {
  "use strict";
  var body = document.body, url = body.getAttribute("data-wait-url");
  var seq = parseInt(body.getAttribute("data-event-seq") || "-1", 10);
  var console_ = body.getAttribute("data-event-live") === "console";
  var dirty = false, leaving = false;
  // words for a person in the page's language (#words, web.i18n.script_words), its own
  // reading: the projector's page has no app.js
  function words(key, vars, fallback) {
    var all = {};
    try { all = JSON.parse((document.getElementById("words") || {}).textContent || "{}") || {}; } catch (e) { all = {}; }
    var text = Object.prototype.hasOwnProperty.call(all, key) ? all[key] : fallback;
    return text.replace(/%\(([a-z_]+)\)[sd]/g, function (m, name) {
      return vars && Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : m;
    });
  }
  document.addEventListener("input", function () { dirty = true; });
  // a form sent is the page's own move: its answer is the next page, never a reload over it
  document.addEventListener("submit", function () { leaving = true; });
  window.addEventListener("pagehide", function () { leaving = true; });
  function busy() {
    var a = document.activeElement;
    return dirty || (a && /^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName));
  }
  function moved() {
    if (leaving) { return; }
    if (console_ && busy()) {
      var note = document.getElementById("live-note");
      if (note) { note.textContent = words("event_moved", null, "The event moved: reload to see it."); note.hidden = false; }
      setTimeout(function () { if (!busy()) { location.reload(); } else { moved(); } }, 5000);
      return;
    }
    location.reload();
  }
  function poll(delay) {
    setTimeout(function () {
      fetch(url + "?seq=" + seq, { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (b) {
          if (b && typeof b.seq === "number" && b.seq > seq) { seq = b.seq; moved(); return; }
          poll(b ? (typeof b.next_ms === "number" ? b.next_ms : 3000) : 5000);
        })
        .catch(function () { poll(5000); });
    }, delay);
  }
  if (url) { poll(0); }
  var pages = document.querySelectorAll("section[data-page]");
  if (pages.length > 1) {
    var at = 0;
    for (var i = 1; i < pages.length; i++) { pages[i].hidden = true; }
    setInterval(function () {
      pages[at].hidden = true;
      at = (at + 1) % pages.length;
      pages[at].hidden = false;
    }, 15000);
  }
})();
