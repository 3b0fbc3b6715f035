// stet example site: app.js
// Marks the current navigation link and reports how long the page took.
(function () {
  "use strict";
  function markCurrent() {
    var links = document.querySelectorAll("nav a[href]");
    for (var i = 0; i < links.length; i++) {
      if (links[i].getAttribute("href") === location.pathname) links[i].classList.add("is-current");
    }
  }
  function reportTiming() {
    var t = performance.getEntriesByType("navigation")[0];
    if (!t) return;
    var el = document.getElementById("timing");
    if (el) el.textContent = "loaded in " + Math.round(t.duration) + " ms";
  }
  document.addEventListener("DOMContentLoaded", markCurrent);
  window.addEventListener("load", reportTiming);
})();
