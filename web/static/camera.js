/* Hera & Zeus referee: the camera page. The phone's rear camera (or the laptop's webcam)
   through getUserMedia, which browsers allow only on a secure page (HTTPS, or localhost).
   About once a second a JPEG frame goes to POST /api/v1/games/<g>/frames; the answer (the
   annotated mat and the proposed events) is shown here, and each proposal is confirmed with
   a tap through the normal endpoints (/actions, /observations). Nothing is recorded without a
   tap. Without this script (or without a secure page) the photo form of the page still works. */
(function () {
  "use strict";
  var INTERVAL = 1000;   // ms between frames (the server allows 2 a second per seat)
  var MAX_SIDE = 3840;   // frames keep up to 4K: small face codes need every pixel (issue 14)
  var QUALITY = 0.85;

  var root, video, canvas, statusEl, result, startBtn, stopBtn, stillBtn, deviceSel;
  var stream = null, timer = null, running = false, sending = false;
  var lastProposals = "", confirming = false;

  function $(id) { return document.getElementById(id); }
  // words for a person, in the page's language: the server puts them in the page (#words,
  // web.i18n.script_words, registered in web/games/herazeus/camera.py); "%(name)s" is filled
  // from vars, "%%" is a percent sign
  var WORDS = null;
  function w(key, vars) {
    if (WORDS === null) {
      try { WORDS = JSON.parse((document.getElementById("words") || {}).textContent || "{}") || {}; } catch (e) { WORDS = {}; }
    }
    var text = Object.prototype.hasOwnProperty.call(WORDS, key) ? WORDS[key] : key;
    return text.replace(/%\(([a-z_]+)\)[sd]/g, function (m, name) {
      return vars && Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : m;
    }).replace(/%%/g, "%");
  }
  function say(text) { if (statusEl) { statusEl.textContent = text; } }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  function headers(extra) {
    // the JSON messages come back in the page's language
    var h = { "X-CSRF-Token": root.getAttribute("data-csrf"), "Accept": "application/json",
              "Accept-Language": document.documentElement.lang || "en" };
    Object.keys(extra || {}).forEach(function (k) { h[k] = extra[k]; });
    return h;
  }

  // ---- the camera ----
  function stopStream() {
    if (stream) { stream.getTracks().forEach(function (t) { t.stop(); }); }
    stream = null;
  }

  function start(deviceId) {
    stopStream();
    // the highest resolution the device offers, 4K where it can (issue 14, item 4)
    var video_c = { width: { ideal: 3840 }, height: { ideal: 2160 } };
    if (deviceId) { video_c.deviceId = { exact: deviceId }; } else { video_c.facingMode = { ideal: "environment" }; }
    say(w("cam_asking"));
    return navigator.mediaDevices.getUserMedia({ video: video_c, audio: false })
      .then(function (s) {
        stream = s;
        video.srcObject = s;
        video.hidden = false;
        running = true;
        startBtn.hidden = true;
        stopBtn.hidden = false;
        var track = s.getVideoTracks()[0];
        var set = track && track.getSettings ? track.getSettings() : {};
        say(w("cam_on", { width: set.width || "?", height: set.height || "?" }));
        if (stillBtn) { stillBtn.hidden = false; }
        listDevices();
        schedule(300);
      })
      .catch(function (e) {
        running = false;
        say(w("cam_failed", { error: e && e.name ? e.name : "error" }));
      });
  }

  function stop() {
    running = false;
    if (timer) { window.clearTimeout(timer); timer = null; }
    stopStream();
    video.hidden = true;
    startBtn.hidden = false;
    stopBtn.hidden = true;
    if (stillBtn) { stillBtn.hidden = true; }
    say(w("cam_stopped"));
  }

  function listDevices() {
    if (!navigator.mediaDevices.enumerateDevices) { return; }
    navigator.mediaDevices.enumerateDevices().then(function (devs) {
      var cams = devs.filter(function (d) { return d.kind === "videoinput"; });
      var label = $("cam-device-label");
      if (cams.length < 2) { label.hidden = true; return; }
      var current = stream && stream.getVideoTracks()[0] && stream.getVideoTracks()[0].getSettings().deviceId;
      deviceSel.textContent = "";
      cams.forEach(function (d, i) {
        var o = el("option", "", d.label || w("cam_device", { num: i + 1 }));
        o.value = d.deviceId;
        if (d.deviceId === current) { o.selected = true; }
        deviceSel.appendChild(o);
      });
      label.hidden = false;
    }).catch(function () { /* no list: the default camera it is */ });
  }

  // ---- frames ----
  function schedule(ms) {
    if (timer) { window.clearTimeout(timer); }
    timer = window.setTimeout(tick, ms);
  }

  function tick() {
    timer = null;
    if (!running) { return; }
    if (document.hidden || sending || video.readyState < 2 || !video.videoWidth) {
      schedule(INTERVAL);
      return;
    }
    var w = video.videoWidth, h = video.videoHeight;
    var k = Math.min(1, MAX_SIDE / Math.max(w, h));
    canvas.width = Math.round(w * k);
    canvas.height = Math.round(h * k);
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    var t0 = Date.now();
    sending = true;
    canvas.toBlob(function (blob) {
      if (!blob) { sending = false; schedule(INTERVAL); return; }
      send(blob).then(function (wait) {
        sending = false;
        if (running) { schedule(Math.max(wait || 0, INTERVAL - (Date.now() - t0))); }
      });
    }, "image/jpeg", QUALITY);
  }

  // ---- a full-resolution still: the sensor's own photo where the browser can take one ----
  function still() {
    var track = stream && stream.getVideoTracks()[0];
    var take = (track && window.ImageCapture)
      ? new window.ImageCapture(track).takePhoto()
      : Promise.reject(new Error("no ImageCapture"));
    say(w("cam_taking_still"));
    take.catch(function () {  // no ImageCapture: the video frame at its full size
      return new Promise(function (resolve) {
        canvas.width = video.videoWidth; canvas.height = video.videoHeight;
        canvas.getContext("2d").drawImage(video, 0, 0);
        canvas.toBlob(resolve, "image/jpeg", 0.92);
      });
    }).then(function (blob) {
      if (!blob) { say(w("cam_no_still")); return; }
      sending = true;
      send(blob, true).then(function () { sending = false; });
    });
  }

  function send(blob, isStill) {
    var url = root.getAttribute("data-frames") + (isStill ? "?still=1" : "");
    return fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: headers({ "Content-Type": "image/jpeg" }), body: blob
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (body) {
        if (r.status === 429 || r.status === 503) {
          var after = parseInt(r.headers.get("Retry-After") || "1", 10);
          say(body.message || w("cam_busy"));
          return (isNaN(after) ? 1 : after) * 1000;
        }
        if (!r.ok) { say(w("cam_refused", { message: body.message || w("cam_error", { status: r.status }) })); return 2000; }
        show(body);
        var keep = isStill && $("still-keep");  // the server holds this still for its player
        if (keep) { keep.hidden = false; }
        return 0;
      });
    }).catch(function () { say(w("cam_no_answer")); return 2000; });
  }

  // ---- showing a frame's answer ----
  function show(data) {
    var img = $("cam-mat");
    var noMat = $("no-mat");
    if (!data.found) {
      if (!noMat) { noMat = el("p", "flash error"); noMat.id = "no-mat"; result.insertBefore(noMat, result.firstChild); }
      noMat.textContent = data.message || w("cam_no_mat");
      say(w("cam_mat_not_found", { ms: Math.round(data.ms || 0) }));
      return;
    }
    if (noMat) { noMat.remove(); }
    showFraming(data.framing);
    var waiting = data.pending ? " " + w("cam_pending", { num: data.pending }) : "";
    var ms = Math.round(data.ms || 0);
    say((data.proposals.length ? w("cam_read", { ms: ms, num: data.proposals.length }) : w("cam_read_matches", { ms: ms })) + waiting);
    renderProposals(data.proposals, data.seq);
    if (!img) {  // below the proposals: what to tap comes first on a phone
      img = el("img", "mat"); img.id = "cam-mat"; img.alt = w("cam_mat_alt");
      result.appendChild(img);
    }
    img.src = data.image;
  }

  // ---- the framing: pixels per module at the farthest cell, and what to do ----
  var fixesOpen = false;  // kept across frames
  function showFraming(f) {
    var box = $("cam-framing");
    if (!box || !f) { return; }
    box.hidden = false;
    box.textContent = "";
    var p = el("p", f.found && f.faces === "yes" ? "flash ok" : "flash info");
    if (!f.found) {
      p.textContent = w("cam_framing_no_mat", { width: f.width, height: f.height });
    } else {
      var verdict = { yes: "cam_framing_yes", marginal: "cam_framing_marginal", no: "cam_framing_no" }[f.faces] || "cam_framing_no";
      p.textContent = w(verdict, { width: f.width, height: f.height, least: f.module_px_min.toFixed(1),
                                   median: f.module_px_median.toFixed(1), needs: f.needs });
    }
    box.appendChild(p);
    if (f.fixes && f.fixes.length) {  // one line on the phone; the fixes a tap away
      var more = el("details", "fixes");
      if (fixesOpen) { more.open = true; }
      more.addEventListener("toggle", function () { fixesOpen = more.open; });
      more.appendChild(el("summary", "", w("cam_fixes", { num: f.fixes.length })));
      var ul = el("ul", "");
      f.fixes.forEach(function (t) { ul.appendChild(el("li", "", t)); });
      more.appendChild(ul);
      box.appendChild(more);
    }
  }

  function renderProposals(props, seq) {
    var key = JSON.stringify(props.map(function (p) { return [p.kind, p.side, p.column, p.position, p.raw]; }));
    var list = $("proposals");
    var focus = document.activeElement;
    if (confirming || (key === lastProposals && list) || (list && focus && list.contains(focus) && focus.tagName === "SELECT")) {
      if (list) { list.setAttribute("data-seq", seq); }
      return;
    }
    lastProposals = key;
    if (!list) {
      var h = el("h2", "", w("cam_what_changed"));
      list = el("ol", "proposals"); list.id = "proposals";
      var before = $("cam-mat");
      result.insertBefore(h, before); result.insertBefore(list, before);
    }
    list.setAttribute("data-seq", seq);
    list.textContent = "";
    if (!props.length) { list.appendChild(el("li", "proposal none", w("cam_matches"))); return; }
    props.forEach(function (p) {
      var li = el("li", "proposal kind-" + p.kind);
      var d = el("p", "", p.description + " ");
      d.appendChild(el("span", "sure", w("cam_sure", { percent: Math.round(p.confidence * 100) })));
      li.appendChild(d);
      var c = p.confirm || {};
      if (c.endpoint) {
        var row = el("div", "row"), sel = null;
        if (c.choices && c.choices.length) {
          var lab = el("label", "", w("cam_which_card") + " ");
          sel = el("select");
          var o0 = el("option", "", w("cam_not_entered")); o0.value = "?"; sel.appendChild(o0);
          c.choices.forEach(function (n) { var o = el("option", "", n); o.value = n; sel.appendChild(o); });
          lab.appendChild(sel); row.appendChild(lab);
        }
        var b = el("button", "primary", w("cam_confirm"));
        b.type = "button";
        b.addEventListener("click", function () { confirm(c, sel, b, li); });
        row.appendChild(b);
        li.appendChild(row);
      } else if (c.by) {
        li.appendChild(el("p", "hint", w("cam_confirms_by", { seat: c.by.charAt(0).toUpperCase() + c.by.slice(1) })));
      } else {
        li.appendChild(el("p", "hint", w("cam_person_decides")));
      }
      list.appendChild(li);
    });
  }

  function confirm(c, sel, button, li) {
    var body = JSON.parse(JSON.stringify(c.body));
    if (sel && body.action) { body.action.card = sel.value; }
    var seq = $("proposals").getAttribute("data-seq");
    var extra = { "Content-Type": "application/json" };
    if (c.endpoint === "actions" && seq) { extra["If-Match"] = '"' + seq + '"'; }
    confirming = true;
    button.disabled = true;
    fetch(root.getAttribute("data-api") + "/" + c.endpoint, {
      method: "POST", credentials: "same-origin", headers: headers(extra), body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (out) {
        var note = li.querySelector(".outcome") || el("p", "outcome");
        if (r.status === 200 || r.status === 201) {
          note.className = "outcome flash ok"; note.textContent = w("cam_recorded", { seq: out.seq });
        } else if (r.status === 202) {
          note.className = "outcome flash info";
          note.textContent = w("cam_needs_more", { message: out.message });
        } else if (r.status === 409) {
          note.className = "outcome flash info";
          note.textContent = w("cam_table_changed");
        } else {
          note.className = "outcome flash error";
          var message = out.message || w("cam_error", { status: r.status });
          note.textContent = out.rule ? w("cam_refused_rule", { rule: out.rule, message: message }) : w("cam_refused", { message: message });
          button.disabled = false;
        }
        li.appendChild(note);
      });
    }).catch(function () {
      button.disabled = false;
    }).then(function () {
      confirming = false;
      lastProposals = "";  // the next frame redraws the list against the new record
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    root = $("camera-page");
    if (!root) { return; }
    video = $("cam-video"); canvas = document.createElement("canvas");
    statusEl = $("cam-status"); result = $("cam-result");
    startBtn = $("cam-start"); stopBtn = $("cam-stop"); stillBtn = $("cam-still"); deviceSel = $("cam-device");
    var live = $("live"), insecure = $("cam-insecure");
    if (!live || !result) { return; }
    var can = window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia;
    if (!can) {
      if (insecure) { insecure.hidden = false; }
      var details = $("photo-table");
      if (details) { details.open = true; }
      return;
    }
    if (insecure) { insecure.hidden = true; }
    live.hidden = false;
    startBtn.addEventListener("click", function () { start(null); });
    stopBtn.addEventListener("click", stop);
    if (stillBtn) { stillBtn.addEventListener("click", still); }
    deviceSel.addEventListener("change", function () { start(deviceSel.value); });
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden && running) { schedule(200); }
    });
    var list = $("proposals");
    if (list) {  // a photo's answer rendered by the server: its forms work without this script
      lastProposals = "server";
    }
  });
}());
