/**
 * k6's console, which @types/k6 does not declare. Only the k6 scripts' own tsconfig sees this file: the
 * root tsconfig excludes load/k6, whose programs already have Node's and the DOM's console.
 */
declare const console: {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
};
