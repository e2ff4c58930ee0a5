/* Dossier: sortable and filterable tables, as progressive enhancement (docs/design-system.md).
   Without this script every table is complete; with it, header buttons sort a table
   (numbers by value, durations like "19 min 04 s" by seconds, text in natural order) and
   tables with 10 or more rows get a filter box that hides rows not containing its text. */
(function () {
  "use strict";
  function cellValue(cell) {
    var t = (cell.textContent || "").trim();
    var m = t.match(/^(?:(\d+) h )?(\d+) min(?: (\d+) s)?$/);
    if (m) { return (+(m[1] || 0)) * 3600 + (+m[2]) * 60 + (+(m[3] || 0)); }
    m = t.replace(/[,\u202f]/g, "").replace(/^\u2212/, "-").match(/^[-+]?\d+(?:\.\d+)?/);
    return m ? parseFloat(m[0]) : null;
  }
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  function enhance(table, index) {
    var head = table.tHead, body = table.tBodies[0];
    if (!head || !body || body.rows.length < 2) { return; }
    var headerRow = head.rows[head.rows.length - 1];
    var original = Array.prototype.slice.call(body.rows);
    Array.prototype.forEach.call(headerRow.cells, function (th, col) {
      if (th.colSpan > 1 || !th.textContent.trim()) { return; }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () {
        var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
        Array.prototype.forEach.call(headerRow.cells, function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir);
        var numeric = th.classList.contains("num");
        var rows = original.slice().sort(function (a, b) {
          var x = a.cells[col], y = b.cells[col], r;
          if (!x || !y) { return 0; }
          if (numeric) {
            var u = cellValue(x), v = cellValue(y);
            if (u === null || v === null) { r = (u === null) - (v === null); } else { r = u - v; }
          } else { r = collator.compare(x.textContent.trim(), y.textContent.trim()); }
          return dir === "ascending" ? r : -r;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
    if (original.length < 10) { return; }
    var region = table.closest(".table-scroll") || table;
    var tools = document.createElement("div");
    tools.className = "table-tools";
    var id = "table-filter-" + index;
    var label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = "Filter " + (region.getAttribute("aria-label") || "table");
    var input = document.createElement("input");
    input.type = "search"; input.id = id; input.autocomplete = "off";
    var count = document.createElement("output");
    count.setAttribute("aria-live", "polite");
    count.textContent = original.length + " rows";
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase(), shown = 0;
      original.forEach(function (row) {
        var hit = !q || row.textContent.toLowerCase().indexOf(q) >= 0;
        row.hidden = !hit; if (hit) { shown += 1; }
      });
      count.textContent = shown + " of " + original.length + " rows";
    });
    tools.appendChild(label); tools.appendChild(input); tools.appendChild(count);
    region.parentNode.insertBefore(tools, region);
  }
  document.querySelectorAll("table.data").forEach(enhance);
})();
