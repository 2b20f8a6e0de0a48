// The player's event page (issue 34): asks /e/<event>/head every few seconds and, when the
// event's log moved, swaps in the page's live part (?part=live), keeping what the player was
// typing (a dispute note), where his caret was and an open <details>.
(function () {
  "use strict";
  var body = document.body, event = body.getAttribute("data-event");
  if (!event) { return; }
  var seq = parseInt(body.getAttribute("data-event-seq") || "-1", 10);
  var every = parseInt(body.getAttribute("data-poll") || "3000", 10);
  var busy = false;
  function keep(root) {
    var kept = { values: {}, open: {}, focus: null, start: null, end: null };
    root.querySelectorAll("textarea[id], input[id]").forEach(function (el) {
      if (el.type === "hidden") { return; }
      kept.values[el.id] = (el.type === "checkbox") ? el.checked : el.value;
    });
    root.querySelectorAll("details[id]").forEach(function (d) { kept.open[d.id] = d.open; });
    var a = document.activeElement;
    if (a && a.id && root.contains(a)) {
      kept.focus = a.id;
      try { kept.start = a.selectionStart; kept.end = a.selectionEnd; } catch (e) { /* no caret */ }
    }
    return kept;
  }
  function restore(root, kept) {
    Object.keys(kept.values).forEach(function (id) {
      var el = document.getElementById(id);
      if (!el || !root.contains(el)) { return; }
      if (el.type === "checkbox") { el.checked = kept.values[id]; } else { el.value = kept.values[id]; }
    });
    Object.keys(kept.open).forEach(function (id) {
      var d = document.getElementById(id);
      if (d && root.contains(d)) { d.open = kept.open[id]; }
    });
    if (kept.focus) {
      var f = document.getElementById(kept.focus);
      if (f) {
        f.focus();
        try { if (kept.start !== null) { f.setSelectionRange(kept.start, kept.end); } } catch (e) { /* no caret */ }
      }
    }
  }
  function reload(next) {
    var live = document.getElementById("event-live");
    if (!live) { return; }
    fetch("/e/" + encodeURIComponent(event) + "?part=live", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) { return; }
        var kept = keep(live);
        live.innerHTML = html;
        restore(live, kept);
        seq = next;
        body.setAttribute("data-event-seq", String(next));
        if (window.hzEventClock) { window.hzEventClock.tick(); }
      })
      .catch(function () { /* the next look tries again */ });
  }
  function look() {
    if (busy || document.hidden) { return; }
    busy = true;
    fetch("/e/" + encodeURIComponent(event) + "/head", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (h) { if (h && typeof h.seq === "number" && h.seq !== seq) { reload(h.seq); } })
      .catch(function () { /* offline: the next look tries again */ })
      .then(function () { busy = false; });
  }
  window.setInterval(look, every);
  document.addEventListener("visibilitychange", look);
}());
