import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { TeamPoster } from './art'

/** Where a deployment may put its own team video (served by the web app); nothing is downloaded. */
export const TEAM_VIDEO_URL = '/media/team-video.mp4'

type State = 'poster' | 'checking' | 'playing' | 'unavailable'

/** Team section: an illustrated poster; play opens a <video> only when the local file exists. */
export default function TeamVideo() {
  const { t } = useTranslation()
  const [state, setState] = useState<State>('poster')

  async function play() {
    setState('checking')
    try {
      const response = await fetch(TEAM_VIDEO_URL, { method: 'HEAD' })
      // The server answers unknown paths with the web app's index.html: only a video counts.
      const type = response.headers.get('content-type') ?? ''
      setState(response.ok && type.startsWith('video/') ? 'playing' : 'unavailable')
    } catch {
      setState('unavailable')
    }
  }

  return (
    <div className="pub-video" data-testid="team-video">
      {state === 'playing' ? (
        <video className="pub-video-frame" src={TEAM_VIDEO_URL} controls autoPlay playsInline />
      ) : (
        <div className="pub-video-frame">
          <TeamPoster label={t('public.home.videoArt')} />
          {state !== 'unavailable' && (
            <button type="button" className="pub-play" onClick={() => void play()} disabled={state === 'checking'} data-testid="team-video-play">
              <svg viewBox="0 0 48 48" width="48" height="48" aria-hidden="true">
                <path d="M18 14l18 10-18 10z" fill="currentColor" />
              </svg>
              <span className="sr-only">{t('public.home.videoPlay')}</span>
            </button>
          )}
        </div>
      )}
      {state === 'unavailable' && (
        <p className="pub-video-note" role="status">
          {t('public.home.videoUnavailable')}
        </p>
      )}
    </div>
  )
}
