// Every test file, in Node or in jsdom: the app's translations, as main.tsx loads them.
import '../i18n'
