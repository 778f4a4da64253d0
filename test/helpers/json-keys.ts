/** The JSON contract's key rule (docs/json-output.md): snake_case, an optional leading `_`. */
const SNAKE = /^_?[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/**
 * Every key of `value` (recursively) that is not snake_case, as `$.path.key`.
 * Objects at a path matching one of `dataPaths` are data, not names rye chose,
 * and are not looked into.
 */
export function nonSnakeKeys(value: unknown, dataPaths: readonly RegExp[], path = '$'): string[] {
  if (Array.isArray(value))
    return value.flatMap((v, i) => nonSnakeKeys(v, dataPaths, `${path}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  if (dataPaths.some((re) => re.test(path))) return [];
  return Object.entries(value).flatMap(([key, v]) => [
    ...(SNAKE.test(key) ? [] : [`${path}.${key}`]),
    ...nonSnakeKeys(v, dataPaths, `${path}.${key}`),
  ]);
}
