// The round clock (issue 34, T6/T7): counts down every .event-clock from the server's
// deadline (data-deadline) and the server's time when the page was made (data-now), with the
// browser's monotonic clock for the seconds since: a phone whose own clock is wrong shows the
// right time left. The time is text; the hidden aria-live region speaks only at each minute
// mark and at time. A page that replaces data-deadline/data-now (a live update, an
// extension) is followed on the next tick.
(function () {
  "use strict";
  if (window.hzEventClock) { return; }
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
  function text(left) {
    if (left < 0) { left = 0; }
    var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
    var ss = (s < 10 ? "0" : "") + s;
    if (h > 0) { return h + ":" + (m < 10 ? "0" : "") + m + ":" + ss; }
    return m + ":" + ss;
  }
  function anchor(el) {
    var d = el.getAttribute("data-deadline") || "", n = el.getAttribute("data-now") || "";
    var key = d + "|" + n;
    if (el._hzKey !== key) {
      el._hzKey = key;
      var dl = Date.parse(d), now = Date.parse(n);
      el._hzLeft = (isNaN(dl) || isNaN(now)) ? null : (dl - now) / 1000;
      el._hzT0 = performance.now();
      el._hzLastMin = null;
    }
    return el._hzLeft;
  }
  function tick() {
    var clocks = document.querySelectorAll(".event-clock");
    for (var i = 0; i < clocks.length; i++) {
      var el = clocks[i], at = anchor(el);
      if (at === null) { continue; }
      var left = Math.ceil(at - (performance.now() - el._hzT0) / 1000);
      var shown = el.querySelector(".event-clock-left");
      var t = text(left);
      if (shown && shown.textContent !== t) { shown.textContent = t; }
      el.classList.toggle("at-time", left <= 0);
      var mins = left <= 0 ? 0 : Math.ceil(left / 60);
      var say = el.querySelector(".event-clock-say");
      if (say && el._hzLastMin !== null && mins !== el._hzLastMin) {  // a minute mark crossed, or time
        say.textContent = left <= 0 ? words("event_time_up", null, "Time. The round's time is up.") :
          mins === 1 ? words("event_minute_left", null, "1 minute left") :
            words("event_minutes_left", { num: mins }, "%(num)s minutes left");
      }
      el._hzLastMin = mins;
    }
  }
  window.hzEventClock = { tick: tick, text: text };
  tick();
  window.setInterval(tick, 1000);
}());
