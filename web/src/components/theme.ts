// Applies the color_scheme (1 automatic, 2 dark, 3 light) and font size settings to the page.
import { useEffect } from 'preact/hooks';
import { state } from '../store.js';

export function useTheme(): void {
  const scheme = (state.value?.settings.color_scheme as number | undefined) ?? 1;
  const fontPx = (state.value?.settings.web_font_size_px as number | undefined) ?? 14;
  useEffect(() => {
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const apply = () => {
      const dark = scheme === 2 || (scheme !== 3 && media.matches);
      document.documentElement.dataset.theme = dark ? 'dark' : 'light';
    };
    apply();
    media.addEventListener('change', apply);
    return () => media.removeEventListener('change', apply);
  }, [scheme]);
  useEffect(() => {
    document.documentElement.style.setProperty('--font-size', `${fontPx}px`);
  }, [fontPx]);
}
