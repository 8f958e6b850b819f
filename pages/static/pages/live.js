// Keeps a battle page current while several people look at it: every few seconds it asks the
// server for the page's version (the last event the reader sees) and, when it has moved on,
// replaces the live part of the page (status, sides, casualties, log) with the server's. The
// umpire's forms below it are left alone, so nothing typed is lost. Without JavaScript the page
// is the same, current when loaded. See docs/adr/0024-battle-pages-stay-current-by-polling.md.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !window.fetch || !window.DOMParser) return;
  var every = Math.max(2, parseInt(live.getAttribute("data-every"), 10) || 10) * 1000;
  var note = document.getElementById("live-note");
  if (note) note.hidden = false;

  function check() {
    if (document.hidden) return schedule();
    var url = window.location.pathname + "?version=" + encodeURIComponent(live.getAttribute("data-live"));
    fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) {
        // 304: nothing new since our version.
        if (response.status !== 200) return null;
        return response.text();
      })
      .then(function (text) {
        if (!text) return;
        var fresh = new DOMParser().parseFromString(text, "text/html").getElementById("live");
        if (fresh) {
          live.replaceWith(fresh);
          live = fresh;
        }
      })
      .catch(function () { /* offline for a moment: try again later */ })
      .then(schedule);
  }

  function schedule() { window.setTimeout(check, every); }
  schedule();
})();
