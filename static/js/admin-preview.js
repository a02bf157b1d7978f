// Admin: a live preview beside the Markdown body. The server renders it (the site's own
// renderer, sanitizer and auto-linker: POST to data-preview-url with the form's CSRF token),
// so what the editor sees is what the page will show; the answer is sanitized HTML.
(function () {
  "use strict";
  function init() {
    var body = document.querySelector("textarea[data-preview-url]");
    if (!body || !window.fetch) return;
    var form = body.form;
    var token = form && form.querySelector("input[name=csrfmiddlewaretoken]");
    var autolink = form && form.querySelector("input[name=autolink]");

    var pair = document.createElement("div");
    pair.className = "preview-pair";
    body.parentNode.insertBefore(pair, body);
    pair.appendChild(body);
    var side = document.createElement("div");
    var label = document.createElement("p");
    label.className = "markdown-preview-label";
    label.id = "podglad-etykieta";
    label.textContent = "Podgląd (tak zobaczą to czytelnicy)";
    var preview = document.createElement("div");
    preview.className = "markdown-preview";
    preview.id = "podglad";
    preview.setAttribute("aria-live", "polite");
    preview.setAttribute("aria-labelledby", label.id);
    preview.setAttribute("role", "region");
    side.appendChild(label);
    side.appendChild(preview);
    pair.appendChild(side);

    var timer = null, controller = null, sent = null;
    function render() {
      var data = new URLSearchParams();
      data.set("body", body.value);
      data.set("id", body.dataset.previewId || "");
      data.set("autolink", autolink && !autolink.checked ? "0" : "1");
      var key = data.toString();
      if (key === sent) return;
      sent = key;
      if (controller) controller.abort();
      controller = new AbortController();
      fetch(body.dataset.previewUrl, {
        method: "POST",
        body: data,
        credentials: "same-origin",
        headers: { "X-CSRFToken": token ? token.value : "", "Accept": "application/json" },
        signal: controller.signal,
      })
        .then(function (response) { return response.json(); })
        .then(function (answer) {
          if (answer.error) { preview.textContent = answer.error; return; }
          preview.innerHTML = answer.html; // sanitized by the server (nh3)
          preview.dataset.rendered = String(Number(preview.dataset.rendered || 0) + 1);
        })
        .catch(function () { /* aborted or offline: keep the last preview */ });
    }
    function soon() { clearTimeout(timer); timer = setTimeout(render, 250); }
    body.addEventListener("input", soon);
    if (autolink) autolink.addEventListener("change", soon);
    render();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
