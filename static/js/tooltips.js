// Glossary tooltips on auto-linked terms (a.term-link), to the WAI-ARIA tooltip pattern:
// each link is described by its own role="tooltip" element (aria-describedby), shown on
// hover and on keyboard focus, hidden on blur, on mouse leave and with Escape; the pointer
// may move onto the tooltip without it vanishing (WCAG 1.4.13). On a touch screen the first
// tap shows the definition and a second tap on the same link follows it.
// Without JavaScript the links are plain links whose `title` holds the definition.
(function () {
  "use strict";
  var links = document.querySelectorAll("a.term-link[title]");
  if (!links.length) return;

  var shown = null;       // { link, tip } on screen
  var hideTimer = null;
  var lastPointer = "";   // "touch" when the last press was a finger
  var openAtPress = null; // the link whose tooltip was open when the finger came down

  function place(link, tip) {
    var box = link.getBoundingClientRect();
    var width = Math.min(320, document.documentElement.clientWidth - 16);
    tip.style.maxWidth = width + "px";
    var left = Math.max(8, Math.min(box.left + window.scrollX,
      window.scrollX + document.documentElement.clientWidth - width - 8));
    tip.style.left = left + "px";
    tip.style.top = (box.bottom + window.scrollY + 6) + "px";
  }

  function show(link, tip) {
    clearTimeout(hideTimer);
    if (shown && shown.tip !== tip) hideNow();
    place(link, tip);
    tip.hidden = false;
    link.classList.add("term-link-active");
    shown = { link: link, tip: tip };
  }

  function hideNow() {
    clearTimeout(hideTimer);
    if (!shown) return;
    shown.tip.hidden = true;
    shown.link.classList.remove("term-link-active");
    shown = null;
  }

  function hideSoon() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hideNow, 150);
  }

  links.forEach(function (link, index) {
    var tip = document.createElement("span");
    tip.id = "dymek-pojecia-" + (index + 1);
    tip.className = "term-tooltip";
    tip.setAttribute("role", "tooltip");
    tip.textContent = link.getAttribute("title"); // text, never HTML
    tip.hidden = true;
    document.body.appendChild(tip);
    // The tooltip now carries the definition; a native title would show it twice.
    link.removeAttribute("title");
    link.setAttribute("aria-describedby", tip.id);

    link.addEventListener("mouseenter", function () { show(link, tip); });
    link.addEventListener("mouseleave", hideSoon);
    tip.addEventListener("mouseenter", function () { clearTimeout(hideTimer); });
    tip.addEventListener("mouseleave", hideSoon);
    link.addEventListener("focus", function () { show(link, tip); });
    link.addEventListener("blur", function () {
      if (lastPointer !== "touch") hideNow();
    });
    link.addEventListener("pointerdown", function (event) {
      lastPointer = event.pointerType;
      openAtPress = shown && shown.link;
    });
    link.addEventListener("click", function (event) {
      // A tap also focuses the link (which shows the tooltip): what counts is whether it
      // was open before this tap.
      if (lastPointer === "touch" && openAtPress !== link) {
        event.preventDefault(); // first tap: read the definition; second tap: go
        show(link, tip);
      }
    });
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" || event.key === "Esc") hideNow();
  });
  document.addEventListener("pointerdown", function (event) {
    lastPointer = event.pointerType;
    if (shown && event.target !== shown.link && !shown.link.contains(event.target)
        && event.target !== shown.tip) hideNow();
  });
  window.addEventListener("resize", function () { if (shown) place(shown.link, shown.tip); });
})();
