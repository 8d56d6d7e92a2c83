/// <reference types="node" />
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { applyBrand, resolveBrand, textColorOn } from './brand'

const styles = readFileSync(resolve(__dirname, '../styles.css'), 'utf8')

describe('theme colours of spec section 9', () => {
  it.each([
    ['--positive', '#39d26d'],
    ['--negative', '#ff5630'],
    ['--info', '#31ccec'],
    ['--warning', '#edbd43'],
    ['--dark', '#1d1d1d'],
    ['--dark-page', '#121212'],
  ])('%s is %s', (name, value) => {
    expect(styles.toLowerCase()).toContain(`${name}: ${value};`)
  })

  it.each([
    ['#39D26D', '#000000'],
    ['#FF5630', '#000000'],
    ['#31CCEC', '#000000'],
    ['#EDBD43', '#000000'],
    ['#1d1d1d', '#FFFFFF'],
    ['#121212', '#FFFFFF'],
  ])('text on %s is %s by weighted luminance', (bg, text) => expect(textColorOn(bg)).toBe(text))

  it('the brand lighter colour is the accent, with its contrast text', () => {
    applyBrand(resolveBrand({ id: '1', uniqueKey: 'k', name: 'x', appTitle: null, domainUrl: null, primaryColor: null, secondaryColor: null, lighterColor: '#222222', horizontalLogo: null, iconogram: null, loginBanner: null, advancedQueryBanner: null }))
    const style = document.documentElement.style
    expect(style.getPropertyValue('--accent')).toBe('#222222')
    expect(style.getPropertyValue('--on-accent')).toBe('#FFFFFF')
  })
})
