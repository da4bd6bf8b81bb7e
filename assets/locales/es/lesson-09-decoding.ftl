## Lección 9: Decodificación

lesson-decoding = Decodificación

lesson-page-greedy-decoding = Decodificación voraz
lesson-page-greedy-decoding-text =
    La generación elige un token cada vez. La decodificación voraz toma el token más probable en
    cada paso y nunca mira atrás: es miope.

    El laboratorio ejecuta una pequeña tabla, escrita a mano, de probabilidades del siguiente
    token con anchura de haz 1, que es la decodificación voraz. Avanza paso a paso con los
    botones o la tecla →.

lesson-page-beam-search = Búsqueda en haz
lesson-page-beam-search-text =
    La búsqueda en haz conserva las B mejores frases parciales. En cada paso las expande todas,
    puntúa cada hija por su log-probabilidad acumulada Σ log p y conserva las B mejores; las
    hipótesis terminadas se apartan.

    Con B = 2 en la misma tabla, una primera palabra menos probable lleva a una frase completa
    más probable, algo que la decodificación voraz no encuentra.

    Las hipótesis largas acumulan más términos negativos, así que las puntuaciones suelen
    normalizarse: la puntuación dividida entre la longitud L elevada a α (α = 0 la deja como
    está, α = 1 promedia por token). Prueba el deslizador α.

lesson-page-beam-search-on-a-real = Búsqueda en haz en un modelo real
lesson-page-beam-search-on-a-real-text =
    Ahora las probabilidades vienen del modelo de traducción. Haz clic en un nodo del árbol para
    ver la atención que hay detrás de esa hipótesis.

    Las claves y los valores pasados nunca cambian, así que un decodificador los guarda en
    caché: cada paso nuevo atiende sobre la caché en O(t·d), además del O(d²) de proyectar su
    propio token y de su capa feed-forward, en lugar de recalcular todo el prefijo.

lesson-page-sampling-temperature-top-k-top = Muestreo: temperatura, top-k, top-p
lesson-page-sampling-temperature-top-k-top-text =
    Ejecuta dos veces la decodificación voraz o la búsqueda en haz y obtendrás dos veces el
    mismo texto. El muestreo elige cada token siguiente al azar, en proporción a las
    probabilidades del modelo, lo que da texto variado (y a veces sin sentido).

    La temperatura divide los logits antes del softmax: τ < 1 afila la distribución hacia la
    voraz, τ > 1 la aplana. Top-k conserva solo los k tokens más probables; top-p conserva el
    menor conjunto de tokens más probables cuyas probabilidades suman al menos p. Lo que se
    conserva se renormaliza y se muestrea.

    El panel Muestreo ejecuta el LM de caracteres con una semilla, para que una muestra pueda
    reproducirse: cambia su temperatura de muestreo τ, k o p y compara.

lesson-page-the-kv-cache = La caché KV
lesson-page-the-kv-cache-text =
    En el paso t, un decodificador necesita las claves y los valores de todas las posiciones
    anteriores, y estos nunca cambian: bajo la máscara causal, la clave y el valor de un token
    dependen solo del propio token y de los anteriores (y, en un codificador–decodificador, del
    origen, que se mantiene fijo durante la decodificación).

    Así que se calculan una vez y se guardan. Cada paso nuevo proyecta entonces solo el token
    nuevo y atiende sobre la caché: O(t·d) para la atención y O(d²) para sus propias
    proyecciones y su capa feed-forward, en lugar de recalcular todo el prefijo, a cambio de una
    memoria que crece con t. (Los apuntes cuentan un paso con caché como O(d), sin la atención
    sobre las t claves guardadas.)

    El panel Caché KV decodifica de forma voraz dos veces, con y sin la caché: los mismos
    tokens, y el trabajo por paso lado a lado.

lesson-page-greedy-and-beam-disagree-on = Voraz y haz no coinciden en inglés
lesson-page-greedy-and-beam-disagree-on-text =
    sotu-lm continúa "The state of the Union is". La decodificación voraz toma " the", su
    siguiente token más probable, y sus 12 tokens empiezan por " the only sure foundation for
    the future." La búsqueda en haz con B = 3 conserva frases que empiezan por " a", y sus 12
    tokens empiezan por " a subject of great importance."

    Contando los 12 tokens de cada una, la continuación del haz tiene log-probabilidad −15.4, y
    la de la voraz, −23.2. El primer paso de la voraz era la mejor palabra, pero llevó a una
    frase peor. Recorre el árbol paso a paso y observa cómo cambia quién va en cabeza.

    La normalización por longitud (α) no cambia nada aquí. Todas las hipótesis llegan al límite
    de 12 tokens, porque un modelo de discursos completos rara vez termina uno. α importa cuando
    las hipótesis terminan con longitudes distintas, como en el modelo de traducción.

    Abre el panel Muestreo bajo el árbol: ahora muestrea sotu-lm. Cada semilla da una
    continuación distinta del mismo prompt, la mayoría prosa plausible de un discurso del Estado
    de la Unión. Cambia τ, k o p y compara.

lesson-page-length-normalisation-on-a-real = Normalización por longitud en un modelo real
lesson-page-length-normalisation-on-a-real-text =
    SmolLM2-135M-Instruct responde a "Name a colour." en su formato de chat, y una hipótesis
    termina cuando escribe <|im_end|>. Con B = 3 y α = 0, la búsqueda prefiere la respuesta
    corta "A colour is a color." (log p −8.64): cada token extra cuesta log-probabilidad, así
    que ganan las hipótesis cortas.

    Esta página pone α = 1, que divide cada puntuación entre la longitud. Ahora gana "The colour
    I'm referring to is a shade of blue," con 12 tokens (log p −13.72, puntuación −1.14). No ha
    terminado: la búsqueda se detiene a los 12 tokens, y una hipótesis cortada ahí compite con
    las terminadas con la misma puntuación. Recorre el árbol paso a paso; luego devuelve el
    deslizador α a 0 y vuelve a ejecutarlo.

    La decodificación voraz no elige ninguna de las dos: "The colour I'm referring to is a rare
    and precious mineral". Un modelo de 135 millones de parámetros es fluido, pero no siempre
    sensato.
