// The final safety pass: only the elements, attributes, URL schemes and (KaTeX) styles the renderer emits survive.
import { createRequire } from 'node:module';
import type sanitizeHtmlType from 'sanitize-html';
import { SafeHtml } from './safe-html.js';

// Loaded on the first message that is not a plain line (rendering is synchronous, hence require).
const require = createRequire(import.meta.url);
let sanitizeModule: typeof sanitizeHtmlType | null = null;
const sanitizeHtml = () => (sanitizeModule ??= require('sanitize-html') as typeof sanitizeHtmlType);

const MATHML = [
  'math', 'semantics', 'annotation', 'mrow', 'mi', 'mo', 'mn', 'ms', 'mtext', 'mspace', 'msup', 'msub', 'msubsup', 'mfrac',
  'msqrt', 'mroot', 'mover', 'munder', 'munderover', 'mtable', 'mtr', 'mtd', 'mlabeledtr', 'menclose', 'mpadded', 'mphantom', 'mstyle', 'merror',
];
const MATHML_ATTRS = [
  'xmlns', 'display', 'encoding', 'mathvariant', 'stretchy', 'fence', 'separator', 'lspace', 'rspace', 'width', 'height', 'depth',
  'linethickness', 'accent', 'accentunder', 'columnalign', 'rowspacing', 'columnspacing', 'scriptlevel', 'displaystyle', 'notation',
  'minsize', 'maxsize', 'movablelimits', 'symmetric', 'largeop', 'mathcolor', 'mathbackground', 'voffset', 'rowalign', 'columnlines', 'rowlines', 'frame',
];

// KaTeX positions glyphs with inline styles; only lengths and a few keywords pass.
const LENGTH = /^-?\d*\.?\d+(em|ex|px|pt|%)?$/;
const STYLE_PROPS = [
  'height', 'width', 'min-width', 'max-width', 'vertical-align', 'margin-left', 'margin-right', 'margin-top', 'margin-bottom', 'top', 'bottom', 'left',
  'padding-left', 'padding-right', 'border-bottom-width', 'border-top-width', 'border-right-width', 'border-left-width',
];
const allowedStyles: Record<string, RegExp[]> = Object.fromEntries(STYLE_PROPS.map((p) => [p, [LENGTH]]));
allowedStyles.position = [/^(relative|absolute)$/];
allowedStyles['text-align'] = [/^(left|right|center)$/];
allowedStyles['border-style'] = [/^(solid|dashed)$/];
allowedStyles.color = [/^#[0-9a-f]{3,6}$|^[a-z]+$/i];
allowedStyles['background-color'] = [/^#[0-9a-f]{3,6}$|^[a-z]+$/i];

const TEXT_TAGS = [
  'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
  'strong', 'em', 'del', 'code', 'pre', 'span', 'div', 'a', 'img', 'video', 'time',
];

const OPTIONS: sanitizeHtmlType.IOptions = {
  allowedTags: [...TEXT_TAGS, 'svg', 'path', 'line', ...MATHML],
  allowedAttributes: {
    '*': ['class', 'title', 'aria-label', 'aria-hidden', 'role', 'style'],
    a: ['href', 'data-stream-id', 'data-id'],
    span: ['data-user-id', 'data-user-group-id'],
    div: ['data-code-language'],
    img: ['src', 'alt', 'data-src-fullsize'],
    video: ['src', 'preload', 'data-video-original-url'],
    time: ['datetime'],
    ol: ['start'],
    th: ['align'],
    td: ['align'],
    svg: ['xmlns', 'width', 'height', 'viewbox', 'viewBox', 'preserveaspectratio', 'preserveAspectRatio'],
    path: ['d'],
    line: ['x1', 'x2', 'y1', 'y2', 'stroke-width'],
    ...Object.fromEntries(MATHML.map((t) => [t, MATHML_ATTRS])),
  },
  allowedSchemes: ['http', 'https', 'ftp', 'mailto', 'tel', 'sms', 'file', 'bitcoin', 'irc', 'ircs', 'xmpp', 'webcal', 'geo', 'magnet'],
  allowedSchemesByTag: { img: ['http', 'https'], video: ['http', 'https'] },
  allowProtocolRelative: false,
  allowedStyles: { '*': allowedStyles },
  disallowedTagsMode: 'escape',
  parser: { lowerCaseAttributeNames: false },
};

/**
 * The same rules without math: sanitize-html rebuilds its lookup tables from the options on every
 * call, and the MathML allowances (28 elements × 34 attributes) made that most of a short
 * message's rendering time. Math and SVG only come from KaTeX and the renderer's own markup; in
 * the renderer's output a literal "<math" or "<svg" can only be such an element, since text is
 * escaped. Picking the smaller set wrongly could only escape math, never let anything through.
 */
const TEXT_OPTIONS: sanitizeHtmlType.IOptions = {
  ...OPTIONS,
  allowedTags: TEXT_TAGS,
  allowedAttributes: Object.fromEntries(Object.entries(OPTIONS.allowedAttributes as Record<string, string[]>).filter(([tag]) => tag === '*' || TEXT_TAGS.includes(tag))),
};

/**
 * The renderer's usual output (plain tags and attributes of TEXT_OPTIONS, safe URLs, no style) is
 * recognized in one pass and kept as it is: sanitize-html's full parse and rebuild was about half
 * of a short message's rendering. Anything outside that subset goes through sanitize-html.
 */
const verbatim = new SafeHtml({
  tags: TEXT_TAGS,
  attributes: TEXT_OPTIONS.allowedAttributes as Record<string, string[]>,
  schemes: OPTIONS.allowedSchemes as string[],
  schemesByTag: OPTIONS.allowedSchemesByTag as Record<string, string[]>,
});

/** Sanitized HTML, void elements written "<br>" as the original does (sanitize-html writes "<br />"). */
export function sanitize(html: string): string {
  return sanitizeShortcut(html) ?? sanitizeInFull(html);
}

/** The shortcut's answer alone: null where sanitize takes the full path (exported for tests). */
export function sanitizeShortcut(html: string): string | null {
  return hasMathOrSvg(html) ? null : verbatim.verbatim(html);
}

/** The general path (exported for the test that holds the shortcut to it). */
export function sanitizeInFull(html: string): string {
  return sanitizeHtml()(html, hasMathOrSvg(html) ? OPTIONS : TEXT_OPTIONS).replace(/<(br|hr|img)((?: [^>]*)?) \/>/g, '<$1$2>');
}

/** Whether the output holds math or SVG, which only the full rule set allows (see TEXT_OPTIONS). */
function hasMathOrSvg(html: string): boolean {
  return html.includes('<math') || html.includes('<svg');
}
