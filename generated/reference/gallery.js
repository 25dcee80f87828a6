// Card gallery: search and filters, kept in the page's URL (?q=...&kind=...) so a filtered view can be
// bookmarked, reloaded or shared. Plain JavaScript, no build step, no network. Without it every card shows.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  if (!form) { return; }
  var cards = Array.prototype.slice.call(document.querySelectorAll(".card[data-kinds]"));
  var shown = document.getElementById("shown-count");
  var none = document.getElementById("no-match");
  var names = ["q", "kind", "module", "variant"];
  function read() {
    var params = new URLSearchParams(window.location.search);
    names.forEach(function (name) {
      var field = form.elements[name];
      var value = params.get(name);
      if (!field || value === null) { return; }
      if (field.tagName === "SELECT" && !Array.prototype.some.call(field.options, function (o) { return o.value === value; })) {
        return;  // an option this page does not have: keep "all"
      }
      field.value = value;
    });
  }
  function write() {
    var params = new URLSearchParams();
    names.forEach(function (name) {
      var value = form.elements[name] ? form.elements[name].value : "";
      if (value) { params.set(name, value); }
    });
    var query = params.toString();
    try {
      window.history.replaceState(null, "", window.location.pathname + (query ? "?" + query : "") + window.location.hash);
    } catch (e) { /* some browsers refuse it for file: pages; the filters still work */ }
  }
  function apply() {
    var words = form.elements.q.value.toLowerCase().split(/\s+/).filter(Boolean);
    var kind = form.elements.kind.value;
    var module = form.elements.module.value;
    var variant = form.elements.variant.value;
    var count = 0;
    cards.forEach(function (card) {
      var text = card.getAttribute("data-search") || "";
      var ok = (!kind || card.getAttribute("data-kinds").split(" ").indexOf(kind) >= 0) &&
               (!module || card.getAttribute("data-module") === module) &&
               (!variant || card.getAttribute("data-variant") === variant) &&
               words.every(function (w) { return text.indexOf(w) >= 0; });
      card.hidden = !ok;
      if (ok) { count += 1; }
    });
    if (shown) { shown.textContent = String(count); }
    if (none) { none.hidden = count > 0; }
  }
  read();
  form.hidden = false;
  form.addEventListener("change", function () { apply(); write(); });
  form.addEventListener("input", function () { apply(); write(); });
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  apply();
}());
