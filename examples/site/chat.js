// stet example site: chat.js
// Joins /ws/chat/<room> (the room from ?room=, "lobby" by default) and shows
// every message the room's members send, this page's included.
(function () {
  "use strict";
  var room = new URLSearchParams(location.search).get("room") || "lobby";
  function el(id) { return document.getElementById(id); }
  function status(text) {
    el("status").textContent = text;
    document.body.dataset.state = text;
  }
  function show(text) {
    var li = document.createElement("li");
    li.textContent = text;
    el("messages").appendChild(li);
  }
  function start() {
    el("room").textContent = room;
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var ws = new WebSocket(scheme + location.host + "/ws/chat/" + encodeURIComponent(room));
    ws.onopen = function () {
      status("open");
      el("text").disabled = false;
      el("go").disabled = false;
    };
    ws.onmessage = function (e) { show(e.data); };
    ws.onclose = function (e) {
      status("closed " + e.code);
      el("text").disabled = true;
      el("go").disabled = true;
    };
    el("send").addEventListener("submit", function (e) {
      e.preventDefault();
      var text = el("text").value;
      if (text && ws.readyState === WebSocket.OPEN) ws.send(text);
      el("text").value = "";
    });
  }
  document.addEventListener("DOMContentLoaded", start);
})();
