// tne-ai serve: the helpers every page shares (play, watch, review).
"use strict";
const $ = (id) => document.getElementById(id);

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function say(text) { $("message").textContent = text || ""; }
