/* Dossier panorama drawing, shared by the experience viewer and the editor: the WebGL
 * equirectangular renderer, the projection of a direction to the screen and back, and the
 * trigger icons. See docs/experience-viewer.md (Rendering) for the formulas. */
(function (global) {
  "use strict";

  var DEG = Math.PI / 180;
  function wrapDeg(d) { d = ((d + 180) % 360 + 360) % 360 - 180; return d; }

  var SVGNS = "http://www.w3.org/2000/svg";
  /* Icons: fixed shapes drawn with DOM calls (no markup strings). */
  var ICONS = {
    sound: ["M3 9h4l5-4v14l-5-4H3z", "M15.5 8.5a5 5 0 0 1 0 7", "M18 6a8.5 8.5 0 0 1 0 12"],
    video: ["M3 10h18v10H3z", "M3 10l2-5 16-2 0 4", "M8 4.6l2.5 4", "M13 3.9l2.5 4"],
    door: ["M4 21h16", "M6 21V3h9v18", "M15 5l4 1.5V21", "M12 12h.5"],
    pause: ["M8 5v14", "M16 5v14"],
    play: ["M7 4l13 8-13 8z"],
    back: ["M15 5l-7 7 7 7", "M8 12h12"],
    exit: ["M10 4H4v16h6", "M14 8l4 4-4 4", "M8 12h10"],
    motion: ["M8 3h8v18H8z", "M11 18h2", "M3 8c-1.5 2.5-1.5 5.5 0 8", "M21 8c1.5 2.5 1.5 5.5 0 8"],
    note: ["M4 4h16v12H9l-5 4z", "M8 8h8", "M8 12h5"],
    yes: ["M5 13l4 4L19 7"],
    no: ["M6 6l12 12", "M18 6L6 18"],
    home: ["M3 11l9-7 9 7", "M5 10v10h14V10", "M10 20v-6h4v6"],
    fullscreen: ["M4 9V4h5", "M20 9V4h-5", "M4 15v5h5", "M20 15v5h-5"],
    zoomin: ["M11 4a7 7 0 1 0 0 14a7 7 0 1 0 0-14", "M16 16l5 5", "M8 11h6", "M11 8v6"],
    zoomout: ["M11 4a7 7 0 1 0 0 14a7 7 0 1 0 0-14", "M16 16l5 5", "M8 11h6"],
    plus: ["M12 5v14", "M5 12h14"],
    trash: ["M4 7h16", "M9 7V4h6v3", "M6 7l1 13h10l1-13"],
    up: ["M12 19V5", "M6 11l6-6 6 6"],
    down: ["M12 5v14", "M6 13l6 6 6-6"],
    save: ["M12 4v11", "M7 10l5 5 5-5", "M5 20h14"],
    open: ["M3 7h7l2 2h9v10H3z"],
    eye: ["M2 12c3-5 7-7 10-7s7 2 10 7c-3 5-7 7-10 7s-7-2-10-7z", "M12 9a3 3 0 1 0 0 6a3 3 0 1 0 0-6"],
    list: ["M8 6h13", "M8 12h13", "M8 18h13", "M3 6h1", "M3 12h1", "M3 18h1"]
  };
  function icon(name) {
    var svg = document.createElementNS(SVGNS, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("class", "xp-icon");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    (ICONS[name] || []).forEach(function (d) {
      var p = document.createElementNS(SVGNS, "path");
      p.setAttribute("d", d);
      svg.appendChild(p);
    });
    return svg;
  }
  // MARK: - WebGL renderer (equirectangular ray-cast in the fragment shader)

  var VERTEX = "attribute vec2 a_pos; varying vec2 v_ndc;" +
    "void main() { v_ndc = a_pos; gl_Position = vec4(a_pos, 0.0, 1.0); }";
  var FRAGMENT = "precision highp float;" +
    "uniform sampler2D u_tex; uniform float u_aspect; uniform float u_f; uniform float u_yaw; uniform float u_pitch;" +
    "varying vec2 v_ndc; const float PI = 3.14159265358979;" +
    "void main() {" +
    "  float x = v_ndc.x * u_aspect; float y = v_ndc.y;" +
    "  float a = u_f * cos(u_pitch) - y * sin(u_pitch);" +
    "  float r = sqrt(x * x + a * a);" +
    "  float lam = atan(x / r, a / r) + u_yaw;" +
    "  float phi = atan((y * cos(u_pitch) + u_f * sin(u_pitch)) / r);" +
    "  lam = mod(lam + PI, 2.0 * PI) - PI;" +
    "  gl_FragColor = texture2D(u_tex, vec2((lam / PI + 1.0) / 2.0, (1.0 - phi / (PI / 2.0)) / 2.0));" +
    "}";

  function GLRenderer(canvas) {
    var gl = null;
    try {
      gl = canvas.getContext("webgl", { preserveDrawingBuffer: true, antialias: false }) ||
        canvas.getContext("experimental-webgl", { preserveDrawingBuffer: true });
    } catch (e) { gl = null; }
    if (!gl) throw new Error("no WebGL");
    function shader(type, src) {
      var s = gl.createShader(type);
      gl.shaderSource(s, src);
      gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
      return s;
    }
    var prog = gl.createProgram();
    gl.attachShader(prog, shader(gl.VERTEX_SHADER, VERTEX));
    gl.attachShader(prog, shader(gl.FRAGMENT_SHADER, FRAGMENT));
    gl.linkProgram(prog);
    if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error("link failed");
    gl.useProgram(prog);
    var buf = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, buf);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, 1]), gl.STATIC_DRAW);
    var loc = gl.getAttribLocation(prog, "a_pos");
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, 2, gl.FLOAT, false, 0, 0);
    var u = {};
    ["u_tex", "u_aspect", "u_f", "u_yaw", "u_pitch"].forEach(function (n) { u[n] = gl.getUniformLocation(prog, n); });
    var tex = gl.createTexture();
    this.maxTexture = gl.getParameter(gl.MAX_TEXTURE_SIZE);
    this.hasTexture = false;

    /* Uploads an image, scaled down to the GPU's limit (and 4096 px, the safe width). */
    this.setImage = function (img) {
      var limit = Math.min(this.maxTexture, 4096);
      var src = img;
      if (img.naturalWidth > limit || img.naturalHeight > limit / 2) {
        var c = document.createElement("canvas");
        var s = Math.min(limit / img.naturalWidth, (limit / 2) / img.naturalHeight);
        c.width = Math.max(1, Math.floor(img.naturalWidth * s));
        c.height = Math.max(1, Math.floor(img.naturalHeight * s));
        c.getContext("2d").drawImage(img, 0, 0, c.width, c.height);
        src = c;
      }
      gl.bindTexture(gl.TEXTURE_2D, tex);
      gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGB, gl.RGB, gl.UNSIGNED_BYTE, src);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
      this.hasTexture = true;
    };
    this.draw = function (yaw, pitch, hfov) {
      var w = canvas.width, h = canvas.height;
      gl.viewport(0, 0, w, h);
      gl.clearColor(0.93, 0.94, 0.95, 1);
      gl.clear(gl.COLOR_BUFFER_BIT);
      if (!this.hasTexture) return;
      var aspect = w / h;
      var vfov = 2 * Math.atan(Math.tan(hfov / 2) / aspect);
      gl.uniform1i(u.u_tex, 0);
      gl.uniform1f(u.u_aspect, aspect);
      gl.uniform1f(u.u_f, 1 / Math.tan(vfov / 2));
      gl.uniform1f(u.u_yaw, yaw);
      gl.uniform1f(u.u_pitch, pitch);
      gl.drawArrays(gl.TRIANGLES, 0, 6);
    };
  }

  /* Screen position (relative to the stage's top left) of the direction (yawDeg, pitchDeg)
   * seen from view {yaw, pitch, hfov} (radians) on a stage of w × h px; mode "flat" is the
   * flat fallback. {visible:false} when behind the viewer. */
  function project(yawDeg, pitchDeg, view, w, h, mode) {
    if (mode === "flat") {
      return { x: w / 2 + wrapDeg(yawDeg - view.yaw / DEG) / 360 * 2 * h, y: (0.5 - pitchDeg / 180) * h, visible: true };
    }
    var yh = yawDeg * DEG, ph = pitchDeg * DEG, y = view.yaw, p = view.pitch;
    var z = Math.sin(ph) * Math.sin(p) + Math.cos(ph) * Math.cos(p) * Math.cos(y - yh);
    if (z <= 0) return { visible: false };
    var k = w / (2 * Math.tan(view.hfov / 2));
    var X = k * Math.cos(ph) * Math.sin(yh - y) / z;
    var Y = -k * (Math.sin(ph) * Math.cos(p) - Math.cos(ph) * Math.cos(y - yh) * Math.sin(p)) / z;
    return { x: w / 2 + X, y: h / 2 + Y, visible: true };
  }
  /* The direction (degrees) under the stage point (x, y): the inverse of project. */
  function unproject(x, y, view, w, h, mode) {
    if (mode === "flat") {
      return { yaw: wrapDeg(view.yaw / DEG + (x - w / 2) / (2 * h) * 360), pitch: Math.max(-90, Math.min(90, (0.5 - y / h) * 180)) };
    }
    var k = w / (2 * Math.tan(view.hfov / 2));
    // Camera ray (right, up, forward), rotated by the view's pitch then yaw.
    var cx = (x - w / 2), cy = -(y - h / 2), cz = k;
    var p = view.pitch, yw = view.yaw;
    var up = cy * Math.cos(p) + cz * Math.sin(p);
    var fw = -cy * Math.sin(p) + cz * Math.cos(p);
    var wx = cx * Math.cos(yw) + fw * Math.sin(yw);
    var wz = -cx * Math.sin(yw) + fw * Math.cos(yw);
    var r = Math.sqrt(wx * wx + up * up + wz * wz);
    return { yaw: wrapDeg(Math.atan2(wx, wz) / DEG), pitch: Math.asin(up / r) / DEG };
  }
  /* Removes bidirectional override and isolate controls (U+202A–202E, U+2066–2069, and the
   * marks U+200E, U+200F, U+061C) so a label cannot display reordered ("‮gnp.exe"). */
  function cleanText(s) { return String(s === undefined || s === null ? "" : s).replace(/[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g, ""); }

  /* Small DOM helpers the viewer and the editor share: an element by id, and a new
   * element with a class and text (text always as textContent, never markup). */
  function byId(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  global.DossierPano = { DEG: DEG, wrapDeg: wrapDeg, icon: icon, GLRenderer: GLRenderer, project: project,
                         unproject: unproject, cleanText: cleanText, byId: byId, el: el };
})(window);
