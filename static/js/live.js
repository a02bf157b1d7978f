// Live notice for term and article pages: when an editor saves the entry this page shows,
// say so and offer a reload. The page is complete without this script; it only listens.
(function () {
  "use strict";
  var notice = document.querySelector("[data-live-events]");
  if (!notice || typeof window.ReconnectingEventSource !== "function") {
    return;
  }
  var source = new window.ReconnectingEventSource(notice.getAttribute("data-live-events"));

  function announce() {
    if (notice.childNodes.length) {
      return;
    }
    var link = document.createElement("a");
    link.href = window.location.href;
    link.textContent = "odśwież";
    link.addEventListener("click", function (event) {
      event.preventDefault();
      window.location.reload();
    });
    notice.appendChild(document.createTextNode("Ten wpis został zaktualizowany — "));
    notice.appendChild(link);
    source.close();
  }

  // "updated": this entry changed; "bulk": a large import changed many entries at once.
  source.addEventListener("updated", announce);
  source.addEventListener("bulk", announce);
})();
