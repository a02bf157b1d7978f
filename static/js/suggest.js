// Suggestions as you type, for every search box with a data-suggest-url attribute: a WAI-ARIA
// "combobox with listbox popup" (Authoring Practices, list autocomplete with manual
// selection). The server ranks; this script shows its list exactly as ranked, each entry with
// its short definition, so fuzzy and diacritic-free matches ("agentow", "kontekts") appear
// even though they do not contain the typed text. Keys: Down/Up move through the options
// (opening the list), Enter opens the active option (or submits the form when none is
// active), Escape closes the list (then clears the box). Requests are debounced, a stale one
// is aborted when the reader types on, and answers are kept for the page's lifetime.
// Progressive enhancement: without JavaScript the form submits to /szukaj/, the same search.
(function () {
  "use strict";
  if (!window.fetch || !("AbortController" in window)) return;

  var DEBOUNCE_MS = 150;
  var CACHE_SIZE = 50;

  function plural(n) {
    // Polish: 1 podpowiedź, 2–4 podpowiedzi, 5 podpowiedzi (the noun has two forms).
    return n === 1 ? "1 podpowiedź" : n + " podpowiedzi";
  }

  document.querySelectorAll("input[data-suggest-url]").forEach(function (input, index) {
    var form = input.form;
    var listId = "podpowiedzi-" + index;
    var wrapper = document.createElement("div");
    wrapper.className = "combobox";
    input.parentNode.insertBefore(wrapper, input);
    wrapper.appendChild(input);

    var list = document.createElement("ul");
    list.id = listId;
    list.className = "suggestions";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Podpowiedzi");
    list.hidden = true;
    wrapper.appendChild(list);

    var status = document.createElement("div");
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    wrapper.appendChild(status);

    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", listId);
    input.setAttribute("autocomplete", "off");

    var items = [];
    var active = -1;
    var timer = null;
    var controller = null;
    var shownQuery = null;
    var cache = new Map();

    function setActive(i) {
      var options = list.children;
      if (active >= 0 && options[active]) options[active].setAttribute("aria-selected", "false");
      active = i;
      if (active >= 0 && options[active]) {
        options[active].setAttribute("aria-selected", "true");
        input.setAttribute("aria-activedescendant", options[active].id);
        options[active].scrollIntoView({ block: "nearest" });
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }

    function open() {
      if (!items.length) return;
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
    }

    function close() {
      setActive(-1);
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
    }

    function render(query, data) {
      items = Array.isArray(data) ? data : [];
      shownQuery = query;
      active = -1;
      list.replaceChildren.apply(list, items.map(function (item, i) {
        var option = document.createElement("li");
        option.id = listId + "-" + i;
        option.setAttribute("role", "option");
        option.setAttribute("aria-selected", "false");
        option.dataset.url = item.url;
        var name = document.createElement("span");
        name.className = "suggestion-name";
        name.textContent = item.name; // text, never HTML
        option.appendChild(name);
        if (item.definition) {
          var definition = document.createElement("span");
          definition.className = "suggestion-definition";
          definition.textContent = item.definition;
          option.appendChild(definition);
        }
        return option;
      }));
      input.removeAttribute("aria-activedescendant");
      status.textContent = query ? (items.length ? plural(items.length) : "Brak podpowiedzi") : "";
      if (items.length && document.activeElement === input) open(); else close();
    }

    function remember(query, data) {
      cache.set(query, data);
      if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value);
    }

    function update() {
      var query = input.value.trim();
      if (query === shownQuery) { open(); return; }
      if (controller) controller.abort();
      controller = null;
      if (!query) { render("", []); return; }
      if (cache.has(query)) { render(query, cache.get(query)); return; }
      var mine = controller = new AbortController();
      fetch(input.dataset.suggestUrl + "?q=" + encodeURIComponent(query), {
        headers: { Accept: "application/json" },
        signal: mine.signal,
      })
        .then(function (response) { return response.ok ? response.json() : []; })
        .then(function (data) {
          remember(query, data);
          if (mine === controller && input.value.trim() === query) render(query, data);
        })
        .catch(function () { /* aborted or offline: the plain search box still works */ });
    }

    function go(i) {
      if (items[i]) window.location.assign(items[i].url);
    }

    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(update, DEBOUNCE_MS);
    });

    input.addEventListener("keydown", function (event) {
      var expanded = !list.hidden;
      switch (event.key) {
        case "ArrowDown":
          event.preventDefault();
          if (!expanded) { open(); if (list.hidden) return; }
          setActive(active + 1 >= items.length ? 0 : active + 1);
          break;
        case "ArrowUp":
          event.preventDefault();
          if (!expanded) { open(); if (list.hidden) return; }
          setActive(active - 1 < 0 ? items.length - 1 : active - 1);
          break;
        case "Enter":
          if (expanded && active >= 0) { event.preventDefault(); go(active); }
          break;
        case "Escape":
          if (expanded) { event.preventDefault(); close(); }
          else if (input.value) { event.preventDefault(); input.value = ""; render("", []); }
          break;
        case "Tab":
          close();
          break;
      }
    });

    // mousedown would blur the input before the click lands: keep the focus in the box.
    list.addEventListener("mousedown", function (event) { event.preventDefault(); });
    list.addEventListener("click", function (event) {
      var option = event.target.closest("[role=option]");
      if (option) window.location.assign(option.dataset.url);
    });
    input.addEventListener("blur", function () { close(); });
    input.addEventListener("focus", function () { if (input.value.trim() === shownQuery) open(); });
    if (form) form.addEventListener("submit", function () { close(); });
  });
})();
