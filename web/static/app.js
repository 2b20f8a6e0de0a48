/* The referee's pages: a little script on top of plain forms (no inline scripts, no
   framework, nothing from the internet). It adds: live updates over server-sent events,
   a check of the log head against what this browser saw before, tapping the table drawing
   to choose columns and places, tapping card names into the setup boxes, arrow keys on the
   replay page. Without it every page still works. */
(function () {
  "use strict";
  var body = document.body;
  var game = body.getAttribute("data-game");

  // ---- the log head: keep what we saw; warn loudly on a shorter or different chain ----
  function checkChain(doc) {
    if (!game) { return; }
    var key = "hz-heads-" + game;
    var seen = {};
    try { seen = JSON.parse(window.localStorage.getItem(key) || "{}") || {}; } catch (e) { seen = {}; }
    var page = {};
    var seq = parseInt(doc.body.getAttribute("data-seq"), 10);
    var hash = doc.body.getAttribute("data-hash");
    if (!isNaN(seq) && hash) { page[seq] = hash; }
    doc.querySelectorAll(".log li[data-seq]").forEach(function (li) {
      page[li.getAttribute("data-seq")] = li.getAttribute("data-hash");
    });
    var problem = null, maxSeen = -1;
    Object.keys(seen).forEach(function (s) {
      var n = parseInt(s, 10);
      if (n > maxSeen) { maxSeen = n; }
      if (page[s] && page[s] !== seen[s]) { problem = "event " + s + " is not the event this phone saw"; }
    });
    if (!isNaN(seq) && maxSeen > seq) { problem = "the log is shorter than this phone saw (event " + maxSeen + ", now " + seq + ")"; }
    var warn = document.getElementById("chain-warning");
    if (problem && warn) {
      warn.textContent = "Warning: the server shows a different record: " + problem + ". Call the judge.";
      warn.hidden = false;
      return;
    }
    Object.keys(page).forEach(function (s) { seen[s] = page[s]; });
    var keys = Object.keys(seen).map(Number).sort(function (a, b) { return a - b; });
    while (keys.length > 200) { delete seen[keys.shift()]; }
    try { window.localStorage.setItem(key, JSON.stringify(seen)); } catch (e) { /* private mode */ }
  }

  // ---- tapping the drawing ----
  var chosen = null;
  function bindTable(root) {
    root.querySelectorAll("svg.table [data-column]").forEach(function (g) {
      g.addEventListener("click", function () {
        var side = g.getAttribute("data-side");
        var col = g.getAttribute("data-column");
        var pos = g.getAttribute("data-position");
        var empty = g.getAttribute("data-empty") === "1";
        if (chosen) { chosen.classList.remove("chosen"); }
        chosen = g; g.classList.add("chosen");
        if (side === body.getAttribute("data-seat")) {
          var play = document.getElementById("g-play");
          if (play) {
            var c = play.querySelector("select[name=column]");
            var p = play.querySelector("select[name=position]");
            if (c) { c.value = col; }
            if (p) { p.value = empty ? "back" : pos; }
          }
        } else {
          document.querySelectorAll("select[data-pick=column][data-side='" + side + "']").forEach(function (s) { s.value = col; });
          document.querySelectorAll("#actions button[data-column]").forEach(function (b) {
            b.classList.toggle("primary", b.getAttribute("data-column") === col);
          });
        }
      });
    });
  }

  // ---- tapping card names into boxes ----
  function bindPickers(root) {
    root.querySelectorAll(".picker[data-picker]").forEach(function (pk) {
      var target = document.getElementById(pk.getAttribute("data-picker"));
      if (!target) { return; }
      pk.hidden = false;
      pk.querySelectorAll("button[data-name]").forEach(function (b) {
        b.addEventListener("click", function () {
          var name = b.getAttribute("data-name");
          if (target.tagName === "INPUT") {
            target.value = target.value ? target.value + "," + name : name;
            return;
          }
          var boxes = target.querySelectorAll("select");
          for (var i = 0; i < boxes.length; i++) {
            if (!boxes[i].dataset.filled) {
              boxes[i].value = name; boxes[i].dataset.filled = "1";
              boxes[i].classList.add("filled");
              return;
            }
          }
        });
      });
      target.querySelectorAll("select").forEach(function (s) {
        s.addEventListener("change", function () { s.dataset.filled = "1"; });
      });
    });
  }

  // ---- live updates ----
  var busy = false, again = false;
  function isDirty(el) {
    var a = document.activeElement;
    if (a && el.contains(a) && /^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName)) { return true; }
    return false;
  }
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        if ((doc.body.getAttribute("data-seat") || "") !== (body.getAttribute("data-seat") || "")) {
          window.location.reload();  // this phone's seat changed (its link was replaced): a new page
          return;
        }
        checkChain(doc);
        var held = false;
        document.querySelectorAll("[data-live][id]").forEach(function (el) {
          var fresh = doc.getElementById(el.id);
          if (isDirty(el)) { held = true; return; }
          if (fresh) { el.replaceWith(document.importNode(fresh, true)); } else { el.remove(); }
        });
        doc.querySelectorAll("[data-live][id]").forEach(function (fresh) {
          if (!document.getElementById(fresh.id)) { window.location.reload(); }
        });
        ["head"].forEach(function (id) {
          var a = document.getElementById(id), b = doc.getElementById(id);
          if (a && b) { a.textContent = b.textContent; }
        });
        body.setAttribute("data-seq", doc.body.getAttribute("data-seq") || "");
        body.setAttribute("data-hash", doc.body.getAttribute("data-hash") || "");
        var note = document.getElementById("live-note");
        if (note) {
          note.hidden = !held;
          note.textContent = held ? "The table changed while you were choosing; finish or reload." : "";
        }
        bindTable(document); bindPickers(document);
      })
      .catch(function () { /* the next event tries again */ })
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  // A refused stream (503: the server's streams are full) closes the EventSource: the page then
  // refreshes itself every Retry-After seconds and asks (HEAD) whether a stream is admitted.
  function streamUrl() { return "/api/v1/games/" + encodeURIComponent(game) + "/stream"; }
  function fallback() {
    fetch(streamUrl(), { method: "HEAD", credentials: "same-origin" })
      .then(function (r) {
        refresh();
        if (r.ok) { listen(); return; }
        var after = parseInt(r.headers.get("Retry-After") || "10", 10);
        setTimeout(fallback, (isNaN(after) || after < 1 ? 10 : after) * 1000);
      })
      .catch(function () { setTimeout(fallback, 10000); });
  }
  function listen() {
    if (!game || !window.EventSource || !document.querySelector("[data-live]")) { return; }
    var es = new EventSource(streamUrl());
    es.onerror = function () {
      if (es.readyState !== 2) { return; }  // CONNECTING: the browser retries by itself
      es.close();
      fallback();
    };
    es.onmessage = function (ev) {
      var seq = NaN;
      try { seq = parseInt(JSON.parse(ev.data).seq, 10); } catch (e) { seq = NaN; }
      var mine = parseInt(body.getAttribute("data-seq"), 10);
      if (isNaN(seq) || isNaN(mine) || seq !== mine) { refresh(); }
    };
    ["head", "update", "event"].forEach(function (name) {
      es.addEventListener(name, es.onmessage);
    });
  }

  // ---- replay: arrow keys ----
  function keys() {
    if (!document.getElementById("stepper")) { return; }
    document.addEventListener("keydown", function (e) {
      var id = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[e.key];
      var a = id && document.getElementById(id);
      if (a && a.href) { window.location.href = a.href; }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    checkChain(document);
    bindTable(document);
    bindPickers(document);
    keys();
    listen();
  });
}());
