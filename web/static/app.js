/* The referee's pages: a little script on top of plain forms (no inline scripts, no
   framework, nothing from the internet). It adds: live updates over server-sent events,
   a check of the log head against what this browser saw before, tapping the table drawing
   to choose columns and places, tapping card names into the setup boxes, arrow keys on the
   replay page. Without it every page still works. */
(function () {
  "use strict";
  var body = document.body;
  document.documentElement.classList.add("js");
  var game = body.getAttribute("data-game");

  // ---- words for a person, in the page's language: the server puts them in the page
  // (#words, web.i18n.script_words); "%(name)s" is filled from vars ----
  var WORDS = {};
  try { WORDS = JSON.parse((document.getElementById("words") || {}).textContent || "{}") || {}; } catch (e) { WORDS = {}; }
  function words(key, vars) {
    var text = Object.prototype.hasOwnProperty.call(WORDS, key) ? WORDS[key] : key;
    return text.replace(/%\(([a-z_]+)\)[sd]/g, function (m, name) {
      return vars && Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : m;
    });
  }
  window.hzWords = words;

  // ---- the log head: keep what we saw (per game, in this browser); on a shorter or
  // different chain, an alarm: the page stops acting and tells the judge (issue 31) ----
  var alarmed = null;  // what this device saw and was served, once the server served less
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
    var problem = null, evidence = null, maxSeen = -1;
    Object.keys(seen).forEach(function (s) {
      var n = parseInt(s, 10);
      if (n > maxSeen) { maxSeen = n; }
      if (page[s] && page[s] !== seen[s] && !evidence) {
        problem = words("chain_other_event", { event: s });
        evidence = { seen_seq: s, seen_hash: seen[s], served_seq: s, served_hash: page[s] };
      }
    });
    if (!isNaN(seq) && hash && maxSeen > seq) {
      problem = words("chain_shorter", { seen: maxSeen, served: seq });
      evidence = { seen_seq: maxSeen, seen_hash: seen[maxSeen], served_seq: seq, served_hash: hash };
    }
    if (problem) { alarm(problem, evidence); return; }
    Object.keys(page).forEach(function (s) { seen[s] = page[s]; });
    var keys = Object.keys(seen).map(Number).sort(function (a, b) { return a - b; });
    while (keys.length > 200) { delete seen[keys.shift()]; }
    try { window.localStorage.setItem(key, JSON.stringify(seen)); } catch (e) { /* private mode */ }
  }
  function alarm(problem, evidence) {
    var told = alarmed ? alarmed.told : words("judge_being_told");
    if (!alarmed) { alarmed = { evidence: evidence, told: told }; report(evidence); }
    alarmText(words("chain_alarm", { problem: problem, told: alarmed.told }));
    body.classList.add("chain-alarm");
    lockForms(document);
  }
  // The alarm's words, and one button: once the judge has looked, this device forgets the heads
  // it kept for the game and takes the record served (it is remembered from there on).
  function alarmText(text) {
    var warn = document.getElementById("chain-warning");
    if (!warn) { return; }
    var said = warn.querySelector(".alarm-text");
    if (!said) {
      warn.textContent = "";
      said = document.createElement("span");
      said.className = "alarm-text";
      var go = document.createElement("button");
      go.type = "button";
      go.id = "chain-accept";
      go.textContent = words("chain_accept");
      go.addEventListener("click", function () {
        try { window.localStorage.removeItem("hz-heads-" + game); } catch (e) { /* private mode */ }
        window.location.reload();
      });
      warn.appendChild(said);
      warn.appendChild(document.createTextNode(" "));
      warn.appendChild(go);
    }
    said.textContent = text;
    warn.hidden = false;
  }
  function lockForms(root) {  // an alarmed page refuses to act: every form's controls are off
    root.querySelectorAll("form[method=post]").forEach(function (form) {
      form.querySelectorAll("button, input, select, textarea").forEach(function (el) {
        if (el.type !== "hidden") { el.disabled = true; }
      });
      form.setAttribute("aria-disabled", "true");
    });
  }
  function report(evidence) {  // an irregularity for the judge (web/witness.py)
    var token = document.querySelector("input[name=csrf]");
    if (!token || !evidence || !window.fetch || !window.FormData) { alarmed.told = words("call_the_judge"); return; }
    var data = new FormData();
    data.append("csrf", token.value);
    Object.keys(evidence).forEach(function (k) { data.append(k, evidence[k]); });
    fetch("/g/" + encodeURIComponent(game) + "/witness", { method: "POST", body: data, credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok; }, function () { return false; })
      .then(function (ok) {
        alarmed.told = ok ? words("judge_told") : words("judge_not_told");
        var text = document.querySelector("#chain-warning .alarm-text");
        if (text) { text.textContent = text.textContent.replace(words("judge_being_told"), alarmed.told); }
        body.setAttribute("data-alarm", ok ? "reported" : "unreported");
      });
  }

  // ---- tapping the drawing ----
  var chosen = null;
  var playing = false;  // a card of the hand was tapped: the next place on one's side plays it
  function bindTable(root) {
    root.querySelectorAll("svg.table [data-column]").forEach(function (g) {
      if (g.dataset.bound) { return; }
      g.dataset.bound = "1";
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
            var c = play.querySelector("select[name=at_column]");
            var p = play.querySelector("select[name=position]");
            if (c) { c.value = col; }
            if (p) { p.value = empty ? "back" : pos; }
            if (playing && c) {  // the second tap: the card goes there
              playing = false;
              var go = play.querySelector("button[name=use]");
              if (play.requestSubmit) { play.requestSubmit(go); } else { go.click(); }
            }
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

  // ---- the hand's cards as buttons: a card, then its place (two taps) ----
  function bindHand(root) {
    root.querySelectorAll(".hand-pick").forEach(function (pick) {
      var form = pick.closest("form");
      var select = form && form.querySelector("select[name=card]");
      if (!select || pick.dataset.bound) { return; }
      pick.dataset.bound = "1";
      pick.hidden = false;
      pick.querySelectorAll("button[data-card]").forEach(function (b) {
        b.addEventListener("click", function () {
          pick.querySelectorAll(".chosen").forEach(function (x) { x.classList.remove("chosen"); });
          b.classList.add("chosen");
          select.value = b.getAttribute("data-card");
          playing = true;
          announce(words("card_chosen", { card: b.getAttribute("data-card") }));
        });
      });
    });
  }

  // ---- the less frequent actions behind one tab bar (the page stays short on a phone) ----
  var openTab = null;  // kept across live updates
  function bindTabs(root) {
    root.querySelectorAll("[data-tabs]").forEach(function (box) {
      if (box.dataset.bound) { return; }
      box.dataset.bound = "1";
      var groups = box.querySelectorAll(".group.tab");
      if (!groups.length) { return; }
      var bar = document.createElement("div");
      bar.className = "tabbar";
      bar.setAttribute("role", "group");
      bar.setAttribute("aria-label", words("more_actions"));
      var buttons = [];
      function show(id) {
        openTab = id;
        groups.forEach(function (g) { g.hidden = g.id !== id; });
        buttons.forEach(function (b) {
          b.setAttribute("aria-expanded", b.getAttribute("aria-controls") === id ? "true" : "false");
        });
      }
      groups.forEach(function (g) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "tabbutton";
        b.textContent = g.getAttribute("data-title") || g.id;
        b.setAttribute("aria-controls", g.id);
        b.addEventListener("click", function () {
          show(openTab === g.id ? null : g.id);
          if (openTab) { revealInDock(g); }
        });
        buttons.push(b);
        bar.appendChild(b);
      });
      box.insertBefore(bar, box.firstChild);
      show(openTab && box.querySelector("#" + CSS.escape(openTab)) ? openTab : null);
    });
  }

  // ---- the seat page's dock (issue 31, item 10): what the seat may do now stays in reach ----
  // The page's template puts the status, the requests, the question, the take-back and the
  // judge call in #dock; the game's actions come from the game's own part of the page and are
  // moved in here (a live update replaces them in place), the rarely used "propose a
  // correction" goes out, before the log. The dock's height is kept in --dock-h for the CSS.
  var dockSeen = 0;
  function bindDock() {
    var dock = document.getElementById("dock");
    if (!dock) { return; }
    var strip = dock.querySelector(".dock-strip");
    var actions = document.getElementById("actions");
    if (actions && actions.parentNode !== dock) { dock.insertBefore(actions, strip); }
    var propose = document.getElementById("propose");
    var log = document.getElementById("log");
    if (propose && log && dock.contains(propose)) { log.parentNode.insertBefore(propose, log); }
    document.documentElement.classList.add("docked");
    function measure() {
      var h = Math.ceil(dock.getBoundingClientRect().height);
      if (h !== dockSeen) {
        dockSeen = h;
        document.documentElement.style.setProperty("--dock-h", h + "px");
      }
    }
    measure();
    if (window.ResizeObserver && !dock.dataset.bound) {
      dock.dataset.bound = "1";
      new window.ResizeObserver(measure).observe(dock);
    }
  }
  // an opened tab's actions are brought into the dock's view (the dock scrolls only when a
  // tab's content does not fit beside the rest)
  function revealInDock(el) {
    var dock = document.getElementById("dock");
    if (dock && el && dock.contains(el) && el.scrollIntoView) { el.scrollIntoView({ block: "nearest" }); }
  }

  // ---- tapping card names into boxes ----
  function bindPickers(root) {
    root.querySelectorAll(".picker[data-picker]").forEach(function (pk) {
      var target = document.getElementById(pk.getAttribute("data-picker"));
      if (!target || pk.dataset.bound) { return; }
      pk.dataset.bound = "1";
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
      // a box changed by hand counts as filled only when it names a card: one set back to "?"
      // is filled again by the next tap (issue 13, item 1)
      target.querySelectorAll("select").forEach(function (s) {
        s.addEventListener("change", function () {
          if (s.value === "?") { delete s.dataset.filled; s.classList.remove("filled"); }
          else { s.dataset.filled = "1"; s.classList.add("filled"); }
        });
      });
      var undo = pk.querySelector("button[data-undo]");
      if (undo) {
        undo.addEventListener("click", function () {
          if (target.tagName === "INPUT") {
            target.value = target.value.split(",").slice(0, -1).join(",");
            return;
          }
          var filled = target.querySelectorAll("select[data-filled]");
          var last = filled[filled.length - 1];
          if (last) { last.value = "?"; delete last.dataset.filled; last.classList.remove("filled"); }
        });
      }
    });
  }

  // ---- live updates and forms sent in place ----
  // A live section ([data-live][id]) is replaced by its fresh copy, keeping what the person had
  // half entered (a value that differs from the page's own), the focus (by id, or by the form
  // and the field's name) and the scroll position; the flashes of an older moment go, and the
  // news is announced politely to a screen reader (issue 13, items 1 and 8).
  var busy = false, again = false, sending = false;
  function keyOf(el) {
    if (!el || el === body) { return null; }
    if (el.id) { return "id:" + el.id; }
    var form = el.form || el.closest("form");
    var name = el.getAttribute("name") || "";
    var where = form ? (form.id ? "#" + form.id : form.getAttribute("action") || "") : "";
    var value = el.tagName === "BUTTON" ? el.getAttribute("value") || el.textContent.trim() : "";
    return where + "|" + el.tagName + "|" + name + "|" + value;
  }
  function find(root, key) {
    if (!key) { return null; }
    if (key.indexOf("id:") === 0) { return root.querySelector("#" + CSS.escape(key.slice(3))); }
    var all = root.querySelectorAll("input, select, textarea, button, a");
    for (var i = 0; i < all.length; i++) { if (keyOf(all[i]) === key) { return all[i]; } }
    return null;
  }
  function changed(el) {
    if (el.tagName === "SELECT") {
      // a single choice: changed when another option is chosen than the page's own (the one
      // marked selected, else the first); comparing each option's flags would call every
      // select without a marked option changed, the fresh copy's too, and lose the choice
      // on the next live update (issue 31, item 7)
      if (!el.multiple) {
        var first = -1;
        for (var i = 0; i < el.options.length; i++) {
          if (el.options[i].defaultSelected) { first = i; break; }
        }
        return el.selectedIndex !== (first < 0 ? (el.options.length ? 0 : -1) : first);
      }
      return Array.prototype.some.call(el.options, function (o) { return o.selected !== o.defaultSelected; });
    }
    if (el.type === "checkbox" || el.type === "radio") { return el.checked !== el.defaultChecked; }
    if (el.type === "hidden" || el.type === "submit" || el.type === "file") { return false; }
    return el.value !== el.defaultValue;
  }
  function drafts(root, skip) {
    var out = [];
    root.querySelectorAll("input, select, textarea").forEach(function (el) {
      if (skip && skip.contains(el)) { return; }
      // what differs from the page's own, and any choice the person made (a default chosen by
      // hand stays chosen when the fresh page's default moves on: issue 31, item 7)
      if (changed(el) || (el.dataset.touched && el.type !== "hidden" && el.type !== "file")) {
        out.push([keyOf(el), el.type === "checkbox" || el.type === "radio" ? el.checked : el.value]);
      }
    });
    root.querySelectorAll("details[data-touched]").forEach(function (d) {  // opened or closed by hand
      if (skip && skip.contains(d)) { return; }  // a form sent starts afresh, closed
      var s = d.querySelector("summary");
      if (s) { out.push(["open|" + s.textContent.trim(), d.open]); }
    });
    return out;
  }
  function restore(root, saved) {
    saved.forEach(function (kv) {
      if (kv[0].indexOf("open|") === 0) {
        root.querySelectorAll("details").forEach(function (d) {
          var s = d.querySelector("summary");
          if (s && "open|" + s.textContent.trim() === kv[0]) { d.open = kv[1]; d.dataset.touched = "1"; }
        });
        return;
      }
      var el = find(root, kv[0]);
      if (!el || changed(el)) { return; }
      if (el.type === "checkbox" || el.type === "radio") { el.checked = kv[1]; }
      else if (el.tagName === "SELECT") {  // a choice the fresh page no longer offers is not kept
        var has = Array.prototype.some.call(el.options, function (o) { return o.value === kv[1]; });
        if (!has) { return; }
        el.value = kv[1];
      } else { el.value = kv[1]; }
      if (el.tagName === "SELECT") { el.dataset.filled = "1"; }
      el.dataset.touched = "1";
    });
  }
  // a choice made by hand (see drafts): changed, or a select opened (its choice, the default
  // too, is what the person looked at)
  ["change", "focusin"].forEach(function (type) {
    document.addEventListener(type, function (e) {
      var t = e.target;
      if (!t || !t.matches) { return; }
      if (t.matches(type === "change" ? "input, select, textarea" : "select")) { t.dataset.touched = "1"; }
    }, true);
  });
  function announce(text) {
    var live = document.getElementById("announce");
    if (!live || !text) { return; }
    live.textContent = "";
    window.setTimeout(function () { live.textContent = text; }, 50);
  }
  function news(doc, before) {
    // the log lines newer than what this page showed, then the status line
    var lines = [];
    doc.querySelectorAll(".log li[data-seq]").forEach(function (li) {
      if (parseInt(li.getAttribute("data-seq"), 10) > before) { lines.push(li.textContent.replace(/\s+/g, " ").trim()); }
    });
    var turn = doc.querySelector("#status .turn");
    if (turn) { lines.push(turn.textContent.replace(/\s+/g, " ").trim()); }
    return lines.slice(0, 4).join(". ");
  }
  // Puts the page ``doc`` in place of this one's live parts. ``sent``: the form just sent (its
  // own fields are not restored: they were used). Returns false when a new page is needed.
  function apply(doc, sent) {
    if ((doc.body.getAttribute("data-seat") || "") !== (body.getAttribute("data-seat") || "")) {
      return false;  // this phone's seat changed (its link was replaced): a new page
    }
    // a live section the page lacks (the actions once setup is over, say) goes in after the
    // live section that precedes it on the fresh page
    var freshLive = doc.querySelectorAll("[data-live][id]");
    var placed = true;
    if (freshLive.length && !document.getElementById(freshLive[0].id)) {
      placed = !!document.querySelector("[data-live][id]");
    }
    if (!placed) { return false; }
    checkChain(doc);
    var before = parseInt(body.getAttribute("data-seq"), 10);
    var focusKey = keyOf(document.activeElement);
    var x = window.scrollX, y = window.scrollY;
    var setupWas = !!document.getElementById("setup");
    var last = null;
    freshLive.forEach(function (fresh) {
      var el = document.getElementById(fresh.id);
      var copy = document.importNode(fresh, true);
      if (el) {
        var saved = drafts(el, sent);
        el.replaceWith(copy);
        restore(copy, saved);
      } else if (last) {
        last.after(copy);
      } else {
        document.querySelector("[data-live][id]").before(copy);
      }
      last = copy;
    });
    document.querySelectorAll("[data-live][id]").forEach(function (el) {
      if (!doc.getElementById(el.id)) { el.remove(); }
    });
    // the flashes say what happened at an older moment: they go when the log moved on (a live
    // update) and are replaced by those of a form's answer
    var flashes = document.getElementById("flashes"), freshFlashes = doc.getElementById("flashes");
    var moved = (doc.body.getAttribute("data-seq") || "") !== (body.getAttribute("data-seq") || "");
    if (flashes && freshFlashes && (sent || moved)) { flashes.innerHTML = freshFlashes.innerHTML; }
    ["head", "foot-head"].forEach(function (id) {  // the log head, at the top and the foot
      var a = document.getElementById(id), b = doc.getElementById(id);
      if (a && b) { a.textContent = b.textContent; }
    });
    body.setAttribute("data-seq", doc.body.getAttribute("data-seq") || "");
    body.setAttribute("data-hash", doc.body.getAttribute("data-hash") || "");
    document.title = doc.title;
    var focus = find(document, focusKey);
    if (focus && focus !== document.activeElement) { focus.focus({ preventScroll: true }); }
    // setup over (its long forms gone): the page starts again at the top, the drawing in
    // sight, instead of a scroll position kept for forms that are no more (issue 31, item 10)
    if (setupWas && !document.getElementById("setup")) { x = 0; y = 0; }
    window.scrollTo(x, y);
    bindDock(); bindTable(document); bindPickers(document); bindHand(document); bindTabs(document); bindForms(document);
    if (alarmed) { lockForms(document); }
    var said = freshFlashes ? freshFlashes.textContent.replace(/\s+/g, " ").trim() : "";
    announce(said || (isNaN(before) ? "" : news(doc, before)));
    return true;
  }
  function refresh() {
    if (busy || sending) { again = true; return; }  // a form's answer comes first
    busy = true;
    fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html", "X-Live-Refresh": "1" } })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        if (!apply(doc, null)) { window.location.reload(); }
      })
      .catch(function () { /* the next event tries again */ })
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  // A form of a live page is sent with fetch; the page it leads to replaces the live parts in
  // place (no reload at the top). A form that leads elsewhere, sends a file, or fails, is left
  // to the browser.
  function bindForms(root) {
    root.querySelectorAll("details summary").forEach(function (s) {
      if (s.dataset.bound) { return; }
      s.dataset.bound = "1";
      s.addEventListener("click", function () { s.parentNode.dataset.touched = "1"; });
    });
    if (!document.querySelector("[data-live]")) { return; }
    root.querySelectorAll("form[method=post]").forEach(function (form) {
      if (form.dataset.bound || form.enctype === "multipart/form-data" || form.hasAttribute("data-reload")) { return; }
      form.dataset.bound = "1";
      form.addEventListener("submit", function (e) {
        if (alarmed) { e.preventDefault(); return; }  // the record went back: nothing is sent
        if (e.defaultPrevented || !window.fetch || !window.FormData) { return; }
        e.preventDefault();
        var data;
        try { data = new FormData(form, e.submitter || null); } catch (err) {
          data = new FormData(form);
          if (e.submitter && e.submitter.name) { data.append(e.submitter.name, e.submitter.value); }
        }
        var buttons = form.querySelectorAll("button");
        buttons.forEach(function (b) { b.disabled = true; });
        sending = true;
        fetch(form.getAttribute("action") || window.location.href, { method: "POST", body: data, credentials: "same-origin", headers: { "Accept": "text/html", "X-Live-Refresh": "1" } })
          .then(function (r) {
            var here = window.location.pathname + window.location.search;
            var there = new URL(r.url, window.location.href);
            // an error page (a refused CSRF token, say), or a page that answers the post itself
            // (the guardian's confirmation): shown as the browser would
            if (!r.ok || !r.redirected) {
              return r.text().then(function (t) { document.open(); document.write(t); document.close(); return null; });
            }
            if (there.pathname + there.search !== here) { window.location.href = r.url; return null; }
            return r.text();
          })
          .then(function (html) {
            if (html === null) { return; }
            var doc = new DOMParser().parseFromString(html, "text/html");
            if (!apply(doc, form)) { window.location.reload(); return; }
            if (form.isConnected && !alarmed) { buttons.forEach(function (b) { b.disabled = false; }); }
          })
          .catch(function () {
            var note = document.getElementById("live-note");
            if (note) { note.textContent = words("unreachable"); note.hidden = false; }
            if (!alarmed) { buttons.forEach(function (b) { b.disabled = false; }); }
          })
          .then(function () { sending = false; if (again) { again = false; refresh(); } });
      });
    });
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

  // ---- a page without one game's stream (the judge's hall): it asks again, never faster
  // than its data-poll milliseconds nor than three times what the last answer took ----
  function poll() {
    var every = parseInt(body.getAttribute("data-poll"), 10);
    if (isNaN(every) || !window.fetch) { return; }
    function again() {
      var t0 = Date.now();
      fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html", "X-Live-Refresh": "1" } })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) { apply(new DOMParser().parseFromString(html, "text/html"), null); })
        .catch(function () { /* tried again below */ })
        .then(function () { window.setTimeout(again, Math.max(every, 3 * (Date.now() - t0))); });
    }
    window.setTimeout(again, every);
  }

  // ---- replay and review: arrow keys, a swipe, a link to an event (#31) ----
  // (on top of the stepper's links, which work without it)
  function keys() {
    if (!document.getElementById("stepper")) { return; }
    function go(id) {
      var a = document.getElementById(id);
      if (a && a.href) { window.location.href = a.href; }
    }
    document.addEventListener("keydown", function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) { return; }
      var t = e.target;
      if (t && t.closest && t.closest("input, select, textarea, [contenteditable]")) { return; }
      var id = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[e.key];
      if (id) { go(id); }
    });
    var x0 = null, y0 = 0;
    document.addEventListener("touchstart", function (e) {
      if (e.touches.length !== 1) { x0 = null; return; }
      x0 = e.touches[0].clientX; y0 = e.touches[0].clientY;
    }, { passive: true });
    document.addEventListener("touchend", function (e) {
      if (x0 === null || !e.changedTouches.length) { return; }
      var dx = e.changedTouches[0].clientX - x0, dy = e.changedTouches[0].clientY - y0;
      x0 = null;
      // a clear sideways swipe: right to left is the next event
      if (Math.abs(dx) > 60 && Math.abs(dx) > 2 * Math.abs(dy)) { go(dx < 0 ? "next" : "prev"); }
    }, { passive: true });
    document.body.dataset.stepping = "on";  // the keys and the swipe listen from here on
    var review = document.body.dataset.review;
    var m = /^#(\d+)$/.exec(window.location.hash);
    if (review !== undefined && m && m[1] !== review) {  // /g/G/review#31: to event 31
      var url = new URL(window.location.href);
      url.hash = "";
      url.searchParams.set("at", m[1]);
      window.location.replace(url.toString());
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    checkChain(document);
    bindDock();
    bindTable(document);
    bindPickers(document);
    bindHand(document);
    bindTabs(document);
    bindForms(document);
    keys();
    listen();
    poll();
  });
}());
