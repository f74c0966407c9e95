import { useCallback, useRef, useState } from "react";

/**
 * React state whose newest value a key handler can read at once. Why: keys that arrive together
 * (a paste, a fast typist, tmux send-keys) are handled before React renders again, so a handler
 * that read the state it was rendered with would lose all but the last of them.
 */
export function useLatestState<T>(initial: () => T): [T, () => T, (next: T) => void] {
  const [state, setState] = useState(initial);
  const latest = useRef(state);
  const set = useCallback((next: T) => {
    latest.current = next;
    setState(next);
  }, []);
  const get = useCallback(() => latest.current, []);
  return [state, get, set];
}
