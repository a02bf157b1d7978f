// Suggestions as you type, for every search box with a data-suggest-url attribute.
// Progressive enhancement: the names come into a native <datalist> (announced by screen
// readers, keyboard-operable with no extra code); without JavaScript the form still submits
// to /szukaj/, which does the same search. Picking a suggestion opens the term directly.
(function () {
  "use strict";
  if (!window.fetch || !("AbortController" in window)) return;

  document.querySelectorAll("input[data-suggest-url]").forEach(function (input, index) {
    var list = document.createElement("datalist");
    list.id = "podpowiedzi-" + index;
    input.insertAdjacentElement("afterend", list);
    input.setAttribute("list", list.id);

    var urls = {};
    var timer = null;
    var controller = null;
    var lastQuery = "";

    function show(items) {
      urls = {};
      list.replaceChildren.apply(list, items.map(function (item) {
        var option = document.createElement("option");
        option.value = item.name; // text, never HTML
        urls[item.name] = item.url;
        return option;
      }));
    }

    function update() {
      var query = input.value.trim();
      if (query === lastQuery) return;
      lastQuery = query;
      if (controller) controller.abort();
      if (!query) { show([]); return; }
      controller = new AbortController();
      fetch(input.dataset.suggestUrl + "?q=" + encodeURIComponent(query), {
        headers: { Accept: "application/json" },
        signal: controller.signal,
      })
        .then(function (response) { return response.ok ? response.json() : []; })
        .then(show)
        .catch(function () { /* aborted or offline: keep the plain search box */ });
    }

    input.addEventListener("input", function (event) {
      // Choosing an option fires "input" without typing (no inputType, or a replacement).
      var picked = !event.inputType || event.inputType === "insertReplacementText";
      if (picked && urls[input.value]) {
        window.location.assign(urls[input.value]);
        return;
      }
      clearTimeout(timer);
      timer = setTimeout(update, 150);
    });
  });
})();
