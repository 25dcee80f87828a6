// Card gallery filters: plain JavaScript, no build step, no network. Without it every card stays visible.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  if (!form) { return; }
  var cards = Array.prototype.slice.call(document.querySelectorAll(".card[data-kinds]"));
  var shown = document.getElementById("shown-count");
  function apply() {
    var kind = form.elements.kind.value;
    var module = form.elements.module.value;
    var variant = form.elements.variant.value;
    var count = 0;
    cards.forEach(function (card) {
      var ok = (!kind || card.getAttribute("data-kinds").split(" ").indexOf(kind) >= 0) &&
               (!module || card.getAttribute("data-module") === module) &&
               (!variant || card.getAttribute("data-variant") === variant);
      card.hidden = !ok;
      if (ok) { count += 1; }
    });
    if (shown) { shown.textContent = String(count); }
  }
  form.hidden = false;
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  apply();
}());
